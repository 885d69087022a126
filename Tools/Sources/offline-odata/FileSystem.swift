#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) import OfflineOData

/// Whether anything exists at `path`.
func fileExists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}

/// The largest file the tool reads whole (a `$metadata` document, a page): Microsoft Graph's
/// `$metadata`, among the largest there are, is about 4 MB. A larger file, or one that never ends
/// (`/dev/zero`), is refused instead of filling the memory.
let largestFileRead = 256 << 20

/// The whole content of the file at `path`, or an error naming the path.
func readWholeFile(_ path: String, limit: Int = largestFileRead) throws(ODataError) -> [UInt8] {
    guard let handle = fopen(path, "rb") else {
        throw ODataError(.cannotOpen, "cannot read '\(path)': \(String(cString: strerror(errno)))")
    }
    defer { fclose(handle) }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, handle) }
        if count == 0 { break }
        guard result.count + count <= limit else {
            throw ODataError(.misuse, "'\(path)' is larger than \(limit >> 20) MiB, more than any document the tool reads")
        }
        result.append(contentsOf: buffer[0..<count])
    }
    if ferror(handle) != 0 { throw ODataError(.cannotOpen, "cannot read '\(path)'") }
    return result
}
