#if canImport(Glibc)
import Glibc
#endif
import OfflineOData

/// Whether anything exists at `path`.
func fileExists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}

/// The whole content of the file at `path`, or an error naming the path.
func readWholeFile(_ path: String) throws(ODataError) -> [UInt8] {
    guard let handle = fopen(path, "rb") else {
        throw ODataError(.cannotOpen, "cannot read '\(path)': \(String(cString: strerror(errno)))")
    }
    defer { fclose(handle) }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, handle) }
        if count == 0 { break }
        result.append(contentsOf: buffer[0..<count])
    }
    if ferror(handle) != 0 { throw ODataError(.cannotOpen, "cannot read '\(path)'") }
    return result
}
