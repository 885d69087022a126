#if canImport(Glibc)
import Glibc
#endif

/// Where the body of `GET .../$value` goes: straight into the stream's temporary file, a chunk at a
/// time, so memory stays flat whatever the stream's size. What the answer's status says decides
/// the file's fate before its first byte (``begin(status:headers:)``): a `206` continues the bytes
/// already there, a `200` starts the file over, anything else is an error whose first bytes are
/// kept for its message. The sink stops the transfer the moment the stream passes `maximum`, or
/// the length the answer announced.
final class StreamFileSink: HTTPBodySink {
    enum Refusal: Equatable {
        /// Larger than the limit (announced, or found while receiving).
        case tooLarge(announced: Int64?)
        /// More bytes than the answer's `Content-Length`/`Content-Range` said.
        case longerThanAnnounced(Int64)
        /// A `206` that does not continue where the file ends.
        case wrongRange(String)
        /// The file could not be written.
        case writeFailed(ODataError)
    }

    private let folder: StreamFolder
    private let name: String
    /// The bytes the temporary file held when the request went out.
    private let resumedFrom: Int64
    private let maximum: Int64
    private var fd: Int32 = -1
    /// Bytes in the temporary file now.
    private(set) var length: Int64 = 0
    /// The whole stream's length as the answer announced it.
    private(set) var announcedTotal: Int64?
    private(set) var refusal: Refusal?
    /// The first bytes of an error answer.
    private(set) var errorBody: [UInt8] = []
    private var isError = false

    init(folder: StreamFolder, name: String, resumedFrom: Int64, maximum: Int64) {
        self.folder = folder
        self.name = name
        self.resumedFrom = resumedFrom
        self.maximum = maximum
    }

    deinit { closeFile() }

    func begin(status: Int, headers: [HTTPHeader]) {
        func header(_ name: String) -> String? { headers.last { asciiLowercased($0.name) == name }?.value }
        let contentLength = header("content-length").flatMap { Int64($0.trimmingSpaces()) }
        switch status {
        case 206:
            // `Content-Range: bytes A-B/TOTAL`: A must be where the file ends.
            let range = header("content-range") ?? ""
            guard let parsed = Self.parseContentRange(range), parsed.start == resumedFrom else {
                refusal = .wrongRange(range)
                return
            }
            announcedTotal = parsed.total
            open(fresh: false)
            length = resumedFrom
        case 200:
            announcedTotal = contentLength
            open(fresh: true)
            length = 0
            // ETag and content type (each one line: a header value has no line break).
            folder.writePartETag(header("etag").map { etag in etag + (header("content-type").map { "\n" + $0 } ?? "") }, for: name)
        default:
            isError = true
            return
        }
        if let total = announcedTotal, total > maximum { refusal = .tooLarge(announced: total) }
    }

    func expect(length: Int) {}

    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool {
        if isError {
            if errorBody.count < 4096 { errorBody.append(contentsOf: chunk.prefix(4096 - errorBody.count)) }
            return true
        }
        guard refusal == nil, fd >= 0 else { return false }
        let after = length + Int64(chunk.count)
        guard after <= maximum else {
            refusal = .tooLarge(announced: announcedTotal)
            return false
        }
        if let total = announcedTotal, after > total {
            refusal = .longerThanAnnounced(total)
            return false
        }
        guard StreamFolder.writeAll(fd, chunk) else {
            refusal = .writeFailed(ODataError(.storage, "cannot write the stream's file: \(String(cString: strerror(errno)))"))
            return false
        }
        length = after
        return true
    }

    /// Closes the temporary file (before it is hashed and moved into place).
    func closeFile() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    private func open(fresh: Bool) {
        do {
            fd = try folder.openPart(name, fresh: fresh)
        } catch {
            refusal = .writeFailed(error)
        }
    }

    /// `bytes A-B/TOTAL` (TOTAL may be `*`).
    static func parseContentRange(_ text: String) -> (start: Int64, end: Int64, total: Int64?)? {
        let trimmed = text.trimmingSpaces()
        guard trimmed.hasPrefix("bytes ") else { return nil }
        let rest = trimmed.dropFirst(6)
        let halves = rest.split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let start = Int64(bounds[0]), let end = Int64(bounds[1]), start <= end else { return nil }
        let total = halves[1] == "*" ? nil : Int64(halves[1])
        if halves[1] != "*" && total == nil { return nil }
        return (start, end, total)
    }
}
