#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) @testable import OfflineOData

/// Keys and files for the encryption tests.
enum EncryptionFixture {
    static let rawKey = StoreKey.raw(Array(0..<32))
    static let otherRawKey = StoreKey.raw(Array(repeating: 7, count: 32))
    static let rawKeyHex = (0..<32).map { byte in
        let digits = Array("0123456789abcdef")
        return String([digits[byte >> 4], digits[byte & 15]])
    }.joined()

    /// Marker strings: each is written into the store as an entity value or a queued body.
    static let markers = (0..<20).map { "MARKER\($0)-zq\($0 * 7919)" }

    /// A store made at `path` with `key`, holding 20 local writes that carry the markers (each
    /// becomes an entity row and a queued request).
    static func storeWithMarkers(at path: String, key: StoreKey?) throws -> LocalStore {
        let store = try LocalStore.create(path: path, metadata: readTestMetadataV4, key: key)
        for (index, marker) in markers.enumerated() {
            let body = #"{"ID":\#(index + 1),"Name":"\#(marker)","City":"Boston"}"#
            _ = try store.write(method: "POST", url: "Agencies", body: Array(body.utf8))
        }
        return store
    }

    /// Every byte of the file at `path` (empty when it cannot be read).
    static func bytes(of path: String) -> [UInt8] {
        guard let file = fopen(path, "rb") else { return [] }
        defer { fclose(file) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            result += buffer[0..<count]
        }
        return result
    }

    /// Overwrites `count` bytes at `offset` of the file at `path` with `byte` XOR the bytes there.
    static func flip(_ path: String, at offset: Int, mask: UInt8 = 0x01) {
        let fd = open(path, O_RDWR)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var byte: UInt8 = 0
        guard pread(fd, &byte, 1, off_t(offset)) == 1 else { return }
        byte ^= mask
        _ = pwrite(fd, &byte, 1, off_t(offset))
    }

    /// The files of `folder` whose bytes contain `needle`.
    static func filesContaining(_ needle: String, in folder: String) -> [String] {
        var found: [String] = []
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        let pattern = Array(needle.utf8)
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            if contains(bytes(of: folder + "/" + name), pattern) { found.append(name) }
        }
        return found
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        let first = needle[0]
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, Array(haystack[index..<(index + needle.count)]) == needle { return true }
            index += 1
        }
        return false
    }
}
