#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// The fuzz seed corpus (`Tests/Fuzz/metadata-corpus`) replays through the reader entry point the
/// fuzz harness uses, so that crashes found once stay fixed without building the fuzzer.
@Suite struct FuzzCorpusReplayTests {
    static let corpus: String = {
        var path = #filePath
        // .../<repo>/Tests/OfflineODataTests/Metadata/FuzzCorpusReplayTests.swift -> .../<repo>/Tests
        for _ in 0..<3 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        return path + "/Fuzz/metadata-corpus"
    }()

    static func files() -> [String] {
        guard let directory = opendir(corpus) else { return [] }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
    }

    @Test func theCorpusIsThere() {
        #expect(Self.files().count >= 30)
    }

    @Test(arguments: files())
    func replays(_ name: String) throws {
        let bytes = try #require(readFile(Self.corpus + "/" + name))
        do {
            let model = try bytes.withUnsafeBytes { buffer in
                Result { () throws(ODataError) in try MetadataReader.read(buffer) }
            }.get()
            #expect(!name.hasPrefix("broken_") && !name.hasPrefix("counterexample_"), "\(name) was accepted")
            _ = model.counts
        } catch {
            // Broken inputs must fail as a metadata error that says where.
            #expect(error.code == .metadata)
            #expect(error.line != nil || error.message.contains("empty"))
        }
    }
}
