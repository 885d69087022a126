#if canImport(Glibc)
import Glibc
#endif

/// A fresh temporary folder per test, removed with its contents afterwards.
final class TemporaryFolder {
    let path: String
    init() {
        var template = Array("/tmp/ood-test-XXXXXX".utf8CString)
        let made: String? = template.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress, let result = mkdtemp(base) else { return nil }
            return String(cString: result)
        }
        path = made ?? "/tmp"
    }
    func file(_ name: String) -> String { "\(path)/\(name)" }
    func write(_ name: String, _ bytes: [UInt8]) {
        guard let handle = fopen(file(name), "wb") else { return }
        _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, handle) }
        fclose(handle)
    }
    deinit {
        // Test folders hold only flat files.
        if let dir = opendir(path) {
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name != "." && name != ".." { unlink("\(path)/\(name)") }
            }
            closedir(dir)
        }
        rmdir(path)
    }
}

