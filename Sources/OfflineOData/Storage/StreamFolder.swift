#if canImport(Glibc)
import Glibc
#endif

/// The folder beside a store file that holds its media streams, one file each (docs/MEDIA.md):
/// `<store>.streams/`. The engine names the files (``newName()``), never the service; a stream
/// being written lives under `<name>.part` and is renamed to `<name>` once whole and on disk, so
/// a file under its final name is always complete.
package struct StreamFolder: Sendable {
    package let path: String

    package init(storePath: String) { path = storePath + ".streams" }

    /// A fresh file name: `s` and 24 random hex digits (nothing from the service).
    static func newName() -> String { "s" + hexText(randomBytes(12)) }

    package func filePath(_ name: String) -> String { path + "/" + name }
    func partPath(_ name: String) -> String { path + "/" + name + ".part" }

    func ensureExists() throws(ODataError) {
        if mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw Self.error("cannot create the stream folder '\(path)'")
        }
    }

    /// Opens the temporary file of `name` for appending (`fresh`: emptied first).
    func openPart(_ name: String, fresh: Bool) throws(ODataError) -> Int32 {
        try ensureExists()
        let flags = O_WRONLY | O_CREAT | O_CLOEXEC | (fresh ? O_TRUNC : O_APPEND)
        let fd = open(partPath(name), flags, 0o600)
        guard fd >= 0 else { throw Self.error("cannot open '\(partPath(name))'") }
        return fd
    }

    /// Moves the finished temporary file into place, durably: the data first, then the name.
    func publish(_ name: String) throws(ODataError) {
        let fd = open(partPath(name), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.error("cannot reopen '\(partPath(name))'") }
        let synced = fsync(fd) == 0
        close(fd)
        guard synced else { throw Self.error("cannot write '\(partPath(name))' to disk") }
        guard rename(partPath(name), filePath(name)) == 0 else { throw Self.error("cannot move '\(partPath(name))' into place") }
        unlink(partETagPath(name))
        syncFolder()
    }

    /// Copies the file at `source` (an app's file) into the temporary file of `name`, then into
    /// place; returns its length and SHA-256. Memory stays at one buffer.
    func importFile(_ source: String, as name: String, maximum: Int64) throws(ODataError) -> (length: Int64, sha256: String) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw ODataError(.notFound, "cannot read the file '\(source)'") }
        defer { close(input) }
        let output = try openPart(name, fresh: true)
        var hasher = SHA256()
        var length: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: Self.bufferSize)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            guard count >= 0 else { close(output); throw Self.error("cannot read the file '\(source)'") }
            if count == 0 { break }
            length += Int64(count)
            guard length <= maximum else {
                close(output)
                remove(name)
                throw ODataError(.misuse, "the file '\(source)' is larger than the stream limit of \(maximum) bytes")
            }
            let ok = buffer.withUnsafeBytes { bytes in Self.writeAll(output, UnsafeRawBufferPointer(rebasing: bytes[0..<count])) }
            guard ok else { close(output); remove(name); throw Self.error("cannot write '\(partPath(name))'") }
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        close(output)
        try publish(name)
        return (length, hasher.finish())
    }

    /// Removes the file of `name` and its temporary file, if there.
    func remove(_ name: String) {
        unlink(filePath(name))
        removePart(name)
    }

    /// Removes the temporary file of `name` and the ETag it was started from.
    func removePart(_ name: String) {
        unlink(partPath(name))
        unlink(partETagPath(name))
    }

    /// Beside a temporary file: the media ETag of the answer it holds the start of, so that a
    /// resumed download asks for the rest of that version only (`If-Range`).
    func partETagPath(_ name: String) -> String { path + "/" + name + ".etag" }

    /// Records the ETag of the answer whose bytes the temporary file of `name` receives (no
    /// `fsync`: if lost, the download starts over, which is always correct).
    func writePartETag(_ etag: String?, for name: String) {
        unlink(partETagPath(name))
        guard let etag, !etag.isEmpty else { return }
        let fd = open(partETagPath(name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        var bytes = Array(etag.utf8)
        _ = bytes.withUnsafeMutableBytes { Self.writeAll(fd, UnsafeRawBufferPointer($0)) }
        close(fd)
    }

    /// The ETag the temporary file of `name` was started from, if known (the first line beside it).
    func partETag(for name: String) -> String? { partLines(name).first }

    /// The content type of the answer the temporary file of `name` holds, if known (the second line).
    func partContentType(for name: String) -> String? { partLines(name).dropFirst().first }

    private func partLines(_ name: String) -> [String] {
        let fd = open(partETagPath(name), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 2048)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return [] }
        return String(decoding: buffer.prefix(count), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The size of the file at `path`, nil when there is none.
    static func size(ofFile path: String) -> Int64? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int64(info.st_size)
    }

    /// The SHA-256 and length of the file at `path`, read one buffer at a time.
    static func digest(ofFile path: String) throws(ODataError) -> (length: Int64, sha256: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw error("cannot read '\(path)'") }
        defer { close(fd) }
        var hasher = SHA256()
        var length: Int64 = 0
        var buffer = [UInt8](repeating: 0, count: bufferSize)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count >= 0 else { throw error("cannot read '\(path)'") }
            if count == 0 { break }
            length += Int64(count)
            buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        return (length, hasher.finish())
    }

    /// The bytes of the file `name`, which the caller knows to be `length` bytes (a stream answered
    /// as a request's body, ``LocalStore/mediaValue(_:)``); a file of another length is an error.
    func contents(of name: String, length: Int64) throws(ODataError) -> [UInt8] {
        let fd = open(filePath(name), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.error("cannot read the stream file '\(name)'") }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress.map { $0 + filled }, $0.count - filled) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw Self.error("the stream file '\(name)' is shorter than its recorded \(length) bytes") }
            filled += count
        }
        var extra: UInt8 = 0
        guard read(fd, &extra, 1) == 0 else { throw Self.error("the stream file '\(name)' is longer than its recorded \(length) bytes") }
        return bytes
    }

    /// The names of the files in the folder (temporary ones included), for `store check`.
    func names() -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Writes all of `bytes` to `fd`, retrying short writes; false on an error (disk full).
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = write(fd, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { return false }
            offset += written
        }
        return true
    }

    private func syncFolder() {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    static let bufferSize = 1 << 20

    private static func error(_ what: String) -> ODataError {
        let code = errno
        let detail = String(cString: strerror(code))
        var error = ODataError(.storage, "\(what): \(detail)")
        error.isDiskFull = code == ENOSPC
        return error
    }
}
