import Testing
@_spi(Tool) @testable import OfflineOData

/// Conflicts at random (issue 37): two stores and a third writer change the same agencies of the
/// real V4 and V2 services, round after round (each writes, A uploads, B uploads, both download).
/// With `serverWins` both stores end equal to the service and every dropped change is recorded;
/// with `clientWins` the service holds, field by field, what the last uploader changed. In both,
/// every queued change is accounted for: sent, archived or discarded, never silently lost.
@Suite(.serialized) struct ConflictRandomTests {
    static let fields = ["name", "city", "street"]
    static let rounds = 5

    /// A reproducible generator (SplitMix64): a failure names its seed.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    /// Random changes of `keys`: for some agencies, some fields, each value naming who, when, what.
    static func changes(_ who: String, round: Int, keys: [String], generator: inout Generator) -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for (index, key) in keys.enumerated() where generator.below(3) > 0 {
            var body: [String: String] = [:]
            for field in fields where generator.below(2) == 0 { body[field] = "\(who)\(round)k\(index)\(field.prefix(1))" }
            if body.isEmpty { body[fields[generator.below(fields.count)]] = "\(who)\(round)k\(index)x" }
            result[key] = body
        }
        return result
    }

    static func json(_ body: [String: String]) -> String {
        "{" + body.keys.sorted().map { #""\#($0)":"\#(body[$0] ?? "")""# }.joined(separator: ",") + "}"
    }

    func served(_ backend: TestBackend, _ key: String) throws -> [String: String] {
        let answer = try backend.get("TravelagencyCollection('\(key)')")
        #expect(answer.status == 200)
        let document = try JSONValue.parse(answer.body)
        let entity = document["d"] ?? document
        var values: [String: String] = [:]
        for field in Self.fields { values[field] = entity[field]?.stringValue ?? "" }
        return values
    }

    func stored(_ store: LocalStore, _ key: String) throws -> [String: String] {
        try store.file.withConnection { db throws(ODataError) in
            let select = try db.prepare("""
                SELECT "name", "city", "street", "_ood_change" FROM "es/TravelagencyCollection" WHERE "agencynum" = ?1
                """)
            try select.bind([.text(key)])
            guard try select.step() else { return [:] }
            #expect(select.text(at: 3) == nil, "no change left pending for \(key)")
            return ["name": select.text(at: 0) ?? "", "city": select.text(at: 1) ?? "", "street": select.text(at: 2) ?? ""]
        }
    }

    @Test(arguments: [(TestBackend.Kind.v4, ConflictPolicy.serverWins), (.v4, .clientWins), (.v2, .serverWins), (.v2, .clientWins)])
    func twoStoresAndAThirdWriter(kind: TestBackend.Kind, policy: ConflictPolicy) throws {
        let backend = try TestBackend.start(kind, csrf: false)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        let metadata = kind == .v4 ? FlightSample.v4Metadata : FlightSample.v2Metadata
        let stores = try ["a", "b"].map { name in
            try LocalStore.create(path: folder.file("\(name).store"), metadata: metadata, definingRequests: [FlightSample.usAgencies],
                                  serviceRoot: backend.serviceRoot)
        }
        defer { for store in stores { store.close() } }
        for store in stores {
            _ = try store.download()
            _ = try store.setConflictPolicy(policy, entitySet: nil)
        }
        let listing = try stores[0].execute(method: "GET", url: "TravelagencyCollection?$orderby=agencynum&$top=4&$select=agencynum").body
        let document = try JSONValue.parse(listing)
        let rows = document["value"]?.arrayValue ?? document["d"]?["results"]?.arrayValue ?? []
        let keys = rows.compactMap { $0["agencynum"]?.stringValue }
        #expect(keys.count == 4)
        var generator = Generator(state: kind == .v4 ? 37 : 38)
        var expected: [String: [String: String]] = [:]
        for key in keys { expected[key] = try served(backend, key) }

        var conflictsMet = 0
        defer { print("\(kind) \(policy): \(conflictsMet) conflicts in \(Self.rounds) rounds") }
        for round in 1...Self.rounds {
            let writer = Self.changes("w", round: round, keys: keys, generator: &generator)
            let local = [Self.changes("a", round: round, keys: keys, generator: &generator),
                         Self.changes("b", round: round, keys: keys, generator: &generator)]
            for (key, body) in writer {
                let answer = try backend.send(HTTPRequest(method: "PATCH", url: backend.url("TravelagencyCollection('\(key)')"),
                                                          headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("If-Match", "*")],
                                                          body: Array(Self.json(body).utf8)))
                #expect(answer.status < 300)
                expected[key, default: [:]].merge(body) { _, new in new }
            }
            for (index, store) in stores.enumerated() {
                for (key, body) in local[index] {
                    _ = try store.write(method: "PATCH", url: "TravelagencyCollection('\(key)')", body: Array(Self.json(body).utf8))
                }
                let outcome = try store.upload()
                // A's change meets a conflict where the writer changed the agency this round; B's
                // where the writer or A did (A's dropped changes left the writer's there).
                let changedBefore = Set(writer.keys).union(index == 1 ? Set(local[0].keys) : [])
                let conflicts = local[index].keys.filter { changedBefore.contains($0) }.count
                conflictsMet += conflicts
                // Every queued change is accounted for: one request per changed agency.
                #expect(outcome.sent + outcome.archived + outcome.discarded + outcome.compacted == local[index].count,
                        "round \(round), store \(index)")
                #expect(outcome.archived == 0, "round \(round), store \(index)")
                let discarded = try store.discardedChanges()
                if policy == .clientWins {
                    #expect(outcome.sent == local[index].count && discarded.isEmpty)
                    // The last uploader's changed fields win.
                    for (key, body) in local[index] { expected[key, default: [:]].merge(body) { _, new in new } }
                } else {
                    // Each change is applied or recorded as discarded, with the service's entity beside it.
                    #expect(outcome.sent + outcome.discarded == local[index].count)
                    #expect(outcome.discarded == conflicts, "round \(round), store \(index)")
                    #expect(discarded.count == outcome.discarded)
                    for change in discarded { #expect(change.served.objectMembers != nil && change.local.objectMembers != nil) }
                    for (key, body) in local[index] where !discarded.contains(where: { $0.url.contains(key) }) {
                        expected[key, default: [:]].merge(body) { _, new in new }
                    }
                    _ = try store.clearDiscardedChanges()
                }
                for key in keys { #expect(try served(backend, key) == expected[key], "round \(round), store \(index), \(key)") }
            }
            for store in stores { _ = try store.download() }
            #expect(round < Self.rounds || conflictsMet > 0, "the generator made no conflict")
            // Both stores converge to the service.
            for key in keys {
                let service = try served(backend, key)
                for store in stores { #expect(try stored(store, key) == service, "round \(round), \(key)") }
            }
        }
    }
}
