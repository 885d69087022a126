import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Finds the shared test material (`shared/fixtures/` beside the checkout) and reads files from it.
///
/// The folder is `$OOD_FIXTURES` when set, otherwise `../shared/fixtures` next to the repository
/// root, which is found from this source file's path.
enum Fixtures {
    static let root: String = {
        if let override = getenv("OOD_FIXTURES") { return String(cString: override) }
        var path = #filePath
        // .../<repo>/Tests/OfflineODataTests/Support/Fixtures.swift -> .../<repo>
        for _ in 0..<4 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        return path + "/../shared/fixtures"
    }()

    /// Whether the folder is there. A clone without it runs every other test: the suites that
    /// read third-party material carry ``Testing/Trait/needsFixtures`` and are skipped, each
    /// saying so.
    static let available: Bool = {
        guard let folder = opendir(root) else { return false }
        closedir(folder)
        return true
    }()

    /// The full path of a fixture, given relative to the fixtures folder.
    static func path(_ relative: String) -> String { root + "/" + relative }

    /// The bytes of a fixture file, or nil when it cannot be read.
    static func bytes(_ relative: String) -> [UInt8]? { readFile(path(relative)) }

    /// The text of a fixture file (UTF-8), or nil when it cannot be read.
    static func text(_ relative: String) -> String? {
        bytes(relative).map { String(decoding: $0, as: UTF8.self) }
    }
}

extension Trait where Self == ConditionTrait {
    /// For suites that read `shared/fixtures`: skipped, with the reason, when it is not there.
    static var needsFixtures: Self {
        .enabled(if: Fixtures.available,
                 "needs the shared test material: put shared/fixtures beside the checkout or set OOD_FIXTURES")
    }
}

/// Reads a whole file, or nil when it cannot be opened.
func readFile(_ path: String) -> [UInt8]? {
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
