import Testing
@_spi(Tool) @testable import OfflineOData

/// The hand-written header and the engine must agree: status values and version numbers.
@Suite struct HeaderAgreementTests {
    static let header: String = {
        var path = #filePath
        for _ in 0..<4 { path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }
        return readFile(path + "/include/offline_odata.h").map { String(decoding: $0, as: UTF8.self) } ?? ""
    }()

    /// `NAME = value` pairs of the `ood_status` enum.
    static func headerStatuses() -> [String: Int32] { headerEnum("ood_status") }

    /// `NAME = value` pairs of the header's enum `name`.
    static func headerEnum(_ name: String) -> [String: Int32] {
        var inside = false
        var result: [String: Int32] = [:]
        for line in header.split(separator: "\n") {
            if line.hasPrefix("typedef enum \(name) {") { inside = true; continue }
            if line.hasPrefix("} \(name);") { break }
            guard inside else { continue }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "," })
            guard words.count >= 3, words[0].hasPrefix("OOD_"), words[1] == "=", let value = Int32(words[2]) else { continue }
            result[String(words[0])] = value
        }
        return result
    }

    @Test func theEventKindsOfTheHeaderAreTheEnginesNumbers() {
        let kinds = Self.headerEnum("ood_event_kind")
        let samples: [(String, StoreEvent)] = [
            ("OOD_EVENT_STATE_CHANGED", .stateChanged(.open)),
            ("OOD_EVENT_OPEN_FAILED", .openFailed(ODataError(.network, "x"))),
            ("OOD_EVENT_DOWNLOAD_PROGRESS", .downloadProgress(DownloadProgress(definingRequest: "A", pages: 1, entities: 1, isDelta: false))),
            ("OOD_EVENT_DOWNLOAD_FINISHED", .downloadFinished(nil)),
            ("OOD_EVENT_FIRST_DOWNLOAD_COMPLETE", .firstDownloadComplete),
            ("OOD_EVENT_UPLOAD_PROGRESS", .uploadProgress(UploadProgress(sent: 1, archived: 0, total: 1))),
            ("OOD_EVENT_UPLOAD_FINISHED", .uploadFinished(nil)),
            ("OOD_EVENT_ENTITY_SETS_CHANGED", .entitySetsChanged(["A"])),
            ("OOD_EVENT_REQUEST_FAILED", .requestFailed(ArchivedRequest(request: QueuedRequest(method: .patch, url: "A('1')"),
                                                                         httpStatus: 412, message: "m", failedAt: "t"))),
            ("OOD_EVENT_UNCLEAN_SHUTDOWN_CHECKED", .uncleanShutdownChecked([StoreFinding(check: "sqlite", message: "m")])),
            ("OOD_EVENT_SERVICE_MODEL_CHANGED", .serviceModelChanged(ServiceModelCheck(
                evidence: .compared, differences: [ModelDifference(kind: .entitySetAdded, entitySet: "A", impact: .compatible)],
                refusedRequests: []))),
        ]
        #expect(kinds.count == samples.count)
        for (name, event) in samples {
            #expect(kinds[name] == event.kindNumber, "\(name)")
            #expect((try? JSONValue.parse(Array(event.jsonText.utf8))) != nil, "\(name): \(event.jsonText)")
        }
        let modes = Self.headerEnum("ood_mode")
        #expect(modes == ["OOD_MODE_MIXED": 0, "OOD_MODE_ONLINE": 1, "OOD_MODE_OFFLINE": 2])
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
