/// How much room media streams may take (docs/MEDIA.md): a stream larger than
/// ``maximumStreamSize``, or one that would take the stream folder past ``maximumFolderSize``, is
/// refused (``ODataError/Code/misuse`` offline, ``ODataError/Code/http`` for a download) and
/// nothing of it stays on disk. A download is stopped as soon as it passes a limit, whatever
/// length the service announced, so a service that sends more than it said cannot fill the disk.
public struct StreamLimits: Sendable, Equatable {
    /// The largest single stream, in bytes (1 GiB by default).
    public var maximumStreamSize: Int64
    /// The most bytes all the store's streams may take together (8 GiB by default).
    public var maximumFolderSize: Int64

    public init(maximumStreamSize: Int64 = 1 << 30, maximumFolderSize: Int64 = 8 << 30) {
        self.maximumStreamSize = maximumStreamSize
        self.maximumFolderSize = maximumFolderSize
    }

    func validate() throws(ODataError) {
        guard maximumStreamSize > 0, maximumFolderSize > 0 else {
            throw ODataError(.misuse, "stream limits must be above 0 bytes")
        }
    }
}
