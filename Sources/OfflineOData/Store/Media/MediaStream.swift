/// A media stream as the offline store holds it: a file, read in place (docs/MEDIA.md). The
/// store never loads a stream into memory to hand it over: Swift gets the path (and, through
/// `OfflineODataFoundation`, a `URL`/`FileHandle`), C the path and length, Python a binary file.
///
/// The file is replaced, never changed in place: a reader that opened it keeps reading the
/// version it opened even while a newer one is downloaded.
public struct MediaStream: Sendable, Equatable {
    /// The file's absolute or store-relative path (the store's path plus `.streams/` and a name
    /// the engine chose).
    public let path: String
    /// Its length in bytes.
    public let length: Int64
    /// The content type the service gave (or the app, for a stream written offline).
    public let contentType: String
    /// The media ETag the service gave, nil for a stream written offline and not yet uploaded.
    public let etag: String?
    /// The SHA-256 of its bytes, as 64 hex digits.
    public let sha256: String?

    public init(path: String, length: Int64, contentType: String, etag: String?, sha256: String?) {
        self.path = path
        self.length = length
        self.contentType = contentType
        self.etag = etag
        self.sha256 = sha256
    }
}
