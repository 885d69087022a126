/// The headers of an offline answer, as the service would send them, so a caller reads an
/// entity's version and a created entity's address the same way offline and online.
enum OfflineAnswerHeaders {
    /// `ETag` for a read of one entity that has one (V4 `@odata.etag`, V2 `__metadata.etag` in the
    /// body the reader wrote); nothing for other reads, whose bodies are not parsed again.
    static func read(_ target: BoundRequest.Target, body: [UInt8]) -> [HTTPHeader] {
        guard target == .entity, let document = try? JSONValue.parse(body) else { return [] }
        guard let etag = (document["@odata.etag"] ?? document["d"]?["__metadata"]?["etag"])?.stringValue,
              !etag.isEmpty, !HTTPOptions.containsLineBreakOrNUL(etag) else { return [] }
        return [HTTPHeader("ETag", etag)]
    }

    /// `Location` of a create: the entity's address under the service root, its key as stored
    /// (provisional until the upload, as later requests use it).
    static func write(_ outcome: WriteOutcome) -> [HTTPHeader] {
        outcome.location.map { [HTTPHeader("Location", $0)] } ?? []
    }
}
