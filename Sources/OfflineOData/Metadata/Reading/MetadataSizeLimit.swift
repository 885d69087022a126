/// The size limit on a `$metadata` document (``HTTPOptions/maximumMetadataSize``), checked before
/// it is parsed: a model takes several times its document's size in memory, and a service is not
/// trusted to keep its document small.
enum MetadataSizeLimit {
    /// Throws ``ODataError/Code/metadata`` when a document of `size` bytes is larger than `limit`.
    static func check(_ size: Int, limit: Int, source: String) throws(ODataError) {
        guard size <= limit else {
            throw ODataError(.metadata, "\(source) has \(size) bytes, more than the limit of \(limit) bytes (the maximum $metadata size)")
        }
    }
}
