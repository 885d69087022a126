import Testing
@testable import OfflineOData

/// The hand-written header and the engine must agree: status values and version numbers.
@Suite struct HeaderAgreementTests {
    static let header: String = {
        var path = #filePath
        for _ in 0..<4 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        return readFile(path + "/include/offline_odata.h").map { String(decoding: $0, as: UTF8.self) } ?? ""
    }()

    /// `NAME = value` pairs of the `ood_status` enum.
    static func headerStatuses() -> [String: Int32] {
        var inside = false
        var result: [String: Int32] = [:]
        for line in header.split(separator: "\n") {
            if line.hasPrefix("typedef enum ood_status {") { inside = true; continue }
            if line.hasPrefix("} ood_status;") { break }
            guard inside else { continue }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "," })
            guard words.count >= 3, words[0].hasPrefix("OOD_"), words[1] == "=", let value = Int32(words[2]) else { continue }
            result[String(words[0])] = value
        }
        return result
    }

    @Test func everyEngineCodeIsInTheHeaderWithTheSameValue() {
        let statuses = Self.headerStatuses()
        #expect(statuses["OOD_OK"] == 0)
        for code in ODataError.Code.allCases {
            #expect(statuses[code.cName] == code.rawValue, "\(code.cName)")
        }
        #expect(statuses.count == ODataError.Code.allCases.count + 1)
    }

    @Test func versionMacrosMatchTheEngine() {
        let lines = Set(Self.header.split(separator: "\n").map(String.init))
        #expect(lines.contains("#define OOD_VERSION_MAJOR \(OfflineODataVersion.major)"))
        #expect(lines.contains("#define OOD_VERSION_MINOR \(OfflineODataVersion.minor)"))
        #expect(lines.contains("#define OOD_VERSION_PATCH \(OfflineODataVersion.patch)"))
        #expect(lines.contains("#define OOD_VERSION \"\(OfflineODataVersion.string)\""))
        #expect(lines.contains("#define OOD_VERSION_NUMBER \(OfflineODataVersion.number)"))
    }
}
