#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// The Apache Olingo OData V2 and V4 JSON payloads: each must parse, and survive write and re-read.
@Suite(.needsFixtures) struct JSONFixtureTests {
    static let v2Files = jsonFiles(under: "apache-olingo-odata2")
    static let v4Files = jsonFiles(under: "apache-olingo-odata4")

    @Test func findsTheFixtures() {
        #expect(Self.v2Files.count >= 30)
        #expect(Self.v4Files.count >= 30)
    }

    @Test(arguments: v2Files + v4Files)
    func parsesAndRoundTrips(_ relative: String) throws {
        let bytes = try #require(Fixtures.bytes(relative))
        let value = try JSONValue.parse(bytes)
        let written = value.serialized()
        #expect(try JSONValue.parse(written) == value)
        // The events walk accepts the file too, and skipping it whole lands on the end.
        var reader = JSONReader(bytes: bytes)
        try reader.skipValue()
        #expect(try reader.next() == .end)
    }

    /// Olingo's "invalid" team has the member `Name` twice. The JSON layer keeps both and lookup
    /// answers the last; a caller that must refuse such payloads asks for it.
    @Test func duplicateNameFixtureFollowsThePolicy() throws {
        let bytes = try #require(Fixtures.bytes("apache-olingo-odata2/JsonInvalidTeamDoubleNameProperty.json"))
        let team = try JSONValue.parse(bytes)["d"]
        #expect(team?["Name"]?.stringValue == "Wrong TeamName")
        #expect(team?.objectMembers?.filter { $0.key == "Name" }.count == 2)
        #expect(throws: ODataError.self) { try JSONValue.parse(bytes, options: .init(rejectsDuplicateKeys: true)) }
    }

    @Test func readsAV2FeedAndAV4Feed() throws {
        let v2 = try JSONValue.parse(try #require(Fixtures.bytes("apache-olingo-odata2/JsonTeams.json")))
        #expect((v2["d"]?["results"]?.arrayValue?.count ?? 0) > 0)
        let v4 = try JSONValue.parse(try #require(Fixtures.bytes("apache-olingo-odata4/client-core/Customers.json")))
        #expect(v4["value"]?.arrayValue != nil)
    }
}

/// The `.json` files below a fixtures folder, relative to the fixtures root, sorted.
private func jsonFiles(under folder: String) -> [String] {
    var found: [String] = []
    var pending = [folder]
    while let relative = pending.popLast() {
        guard let directory = opendir(Fixtures.path(relative)) else { continue }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name == "." || name == ".." { continue }
            let path = relative + "/" + name
            if name.hasSuffix(".json") {
                found.append(path)
            } else if let sub = opendir(Fixtures.path(path)) {
                closedir(sub)
                pending.append(path)
            }
        }
    }
    return found.sorted()
}
