#if canImport(Glibc)
import Glibc
#endif

/// Reads a whole file with stdio, or nil when it cannot be opened (the runner uses no Foundation).
func readWholeFile(_ path: String) -> [UInt8]? {
    guard let handle = fopen(path, "rb") else { return nil }
    defer { fclose(handle) }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = buffer.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, handle) }
        if count == 0 { break }
        result.append(contentsOf: buffer[0..<count])
    }
    return result
}

/// `$OOD_FIXTURES`, else `../shared/fixtures` relative to the current directory (the repository root).
func fixturesRoot() -> String {
    if let value = getenv("OOD_FIXTURES") { return String(cString: value) }
    return "../shared/fixtures"
}
