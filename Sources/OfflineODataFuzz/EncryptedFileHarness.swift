#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) import OfflineOData

/// Damaged encrypted store files (docs/ENCRYPTION.md): opening and checking one never crashes,
/// whatever was done to it. The first input byte picks the damage, the rest say where:
/// 0 a wrong key; 1 truncation; 2 the input itself as the file (random bytes, the store's magic
/// in front half the time); otherwise XOR of bytes at offsets (4-byte offset, 1-byte mask pairs).
@Sendable func fuzzEncryptedFile(_ bytes: UnsafeRawBufferPointer) {
    guard let base = EncryptedFuzzBase.bytes, let mode = bytes.first else { return }
    let input = Array(bytes.dropFirst())
    var file = base
    var key = EncryptedFuzzBase.key
    switch mode % 4 {
    case 0:
        key = .raw(Array(repeating: mode, count: 32))
    case 1:
        let value = input.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        file = Array(file.prefix(value % (file.count + 1)))
    case 2:
        file = (mode & 4 != 0 ? Array("OODCRYPT".utf8) : []) + input
    default:
        var index = 0
        while index + 5 <= input.count {
            let offset = input[index..<(index + 4)].reduce(0) { $0 << 8 | Int($1) } % max(1, file.count)
            if offset < file.count { file[offset] ^= input[index + 4] }
            index += 5
        }
    }
    let path = EncryptedFuzzBase.folder + "/fuzz.store"
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    guard let handle = fopen(path, "wb") else { return }
    _ = file.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, handle) }
    fclose(handle)
    guard let store = try? StoreFile(path: path, acceptsEmptyFile: false, key: key) else {
        EncryptedFuzzBase.removeFiles(of: path)
        return
    }
    _ = try? store.check(quick: false)
    _ = try? store.queuedRequests()
    store.close()
    EncryptedFuzzBase.removeFiles(of: path)
}

/// The undamaged store every input starts from: made once per process, in a folder of its own
/// that is emptied after every input and removed when the process exits (so runs leave nothing
/// in /tmp; a crash leaves its folder, beside libFuzzer's crash file).
enum EncryptedFuzzBase {
    static let key = StoreKey.raw(Array(0..<32))
    nonisolated(unsafe) static let folder: String = {
        var template = Array("/tmp/ood-fuzz-enc-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, let made = mkdtemp(base) else { return nil }
            return String(cString: made)
        }
        guard let made else { return "/tmp" }
        atexit { EncryptedFuzzBase.removeFolder() }
        return made
    }()
    nonisolated(unsafe) static let bytes: [UInt8]? = {
        let path = folder + "/base.store"
        defer { removeFiles(of: path) }
        guard let store = try? StoreFile(path: path, acceptsEmptyFile: false, key: key) else { return nil }
        store.close()
        guard let handle = fopen(path, "rb") else { return nil }
        defer { fclose(handle) }
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, handle) }
            if count == 0 { break }
            result += chunk[0..<count]
        }
        return result
    }()

    /// A store file and the files SQLite and the engine keep beside it.
    static func removeFiles(of path: String) {
        for suffix in ["", "-wal", "-shm", "-journal", "-writer"] { unlink(path + suffix) }
    }

    /// The folder and whatever is left in it (it holds only this process's files), at exit.
    static func removeFolder() {
        guard folder != "/tmp", let directory = opendir(folder) else { return }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(directory)
        for name in names { unlink(folder + "/" + name) }
        rmdir(folder)
    }
}
