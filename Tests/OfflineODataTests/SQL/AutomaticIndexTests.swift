import Testing
@_spi(Tool) @testable import OfflineOData

/// Automatic indexes (issue 23): the shapes of reads are counted, a shape seen often enough gets
/// an index outside the request path, status says why, and the answers stay the same.
@Suite struct AutomaticIndexTests {
    typealias Plan = IndexPlanTests

    static func shape(_ store: LocalStore, _ url: String) throws -> [String]? {
        let reader = LocalReader(model: store.model, schema: store.schema, dialect: store.dialect, serviceRoot: "http://h/")
        return ReadShape.of(try reader.bind(url: url), schema: store.schema)?.properties
    }

    @Test func aShapeHoldsEqualitiesThenOneRangeOrTheOrder() throws {
        let folder = TemporaryFolder()
        let store = try Plan.makeStore(folder, count: 3)
        defer { store.close() }
        #expect(try Self.shape(store, "Agencies?$filter=City eq 'C1'") == ["City"])
        #expect(try Self.shape(store, "Agencies?$filter=Revenue gt 2 and City eq 'C1' and Name in ('a','b')") == ["City", "Name", "Revenue"])
        #expect(try Self.shape(store, "Agencies?$filter=City eq 'C1'&$orderby=Name desc,Revenue") == ["City", "Name", "Revenue"])
        #expect(try Self.shape(store, "Agencies?$orderby=Address/City&$top=3") == ["Address/City"])
        #expect(try Self.shape(store, "Agencies?$filter='C1' eq City") == ["City"])
        // The key's index serves these; a 'ne', an 'or', a function or a computed value is no shape.
        #expect(try Self.shape(store, "Agencies?$filter=ID gt 4 and City eq 'C1'") == ["City", "ID"])
        #expect(try Self.shape(store, "Agencies?$filter=ID gt 4") == nil)
        #expect(try Self.shape(store, "Agencies?$filter=City ne 'C1'") == nil)
        #expect(try Self.shape(store, "Agencies?$filter=City eq 'C1' or Name eq 'x'") == nil)
        #expect(try Self.shape(store, "Agencies?$filter=startswith(City,'C')") == nil)
        #expect(try Self.shape(store, "Agencies?$filter=Tags/any(t: t eq 'x')") == nil)
        #expect(try Self.shape(store, "Agencies") == nil)
    }

    @Test func aShapeReadTenTimesGetsAnIndexThatStatusExplains() throws {
        let folder = TemporaryFolder()
        let store = try Plan.makeStore(folder)
        defer { store.close() }
        let url = "Agencies?$filter=City eq 'C3'&$top=5"
        let answer = try Plan.ids(store, url)
        for _ in 1..<LocalStore.automaticIndexThreshold - 1 { _ = try store.execute(method: "GET", url: url) }
        #expect(try store.createAutomaticIndexes().isEmpty, "nine reads are not enough")
        _ = try store.execute(method: "GET", url: url)
        #expect(try !Plan.plan(store, url).contains("index/City"))
        let made = try store.createAutomaticIndexes()
        #expect(made.map(\.properties) == [["City"]])
        #expect(made.first?.origin == .automatic)
        #expect(made.first?.reason == "reads filtered or ordered on City 10 times")
        #expect(try store.indexes() == made)
        #expect(try Plan.plan(store, url).contains("USING INDEX es/Agencies/index/City (City=?)"))
        #expect(try Plan.ids(store, url) == answer)
        // Made once: more reads of the same shape make nothing new.
        for _ in 0..<LocalStore.automaticIndexThreshold { _ = try store.execute(method: "GET", url: url) }
        #expect(try store.createAutomaticIndexes().isEmpty)
    }

    @Test func countsOutliveTheSessionThatSawThem() throws {
        let folder = TemporaryFolder()
        let store = try Plan.makeStore(folder, count: 50)
        let url = "Agencies?$filter=Name eq 'Agency 7'"
        for _ in 0..<5 { _ = try store.execute(method: "GET", url: url) }
        store.close()
        let reopened = try LocalStore.open(path: folder.file("plan.store"))
        defer { reopened.close() }
        for _ in 0..<5 { _ = try reopened.execute(method: "GET", url: url) }
        #expect(try reopened.createAutomaticIndexes().map(\.properties) == [["Name"]])
    }

    @Test func aDeclaredIndexThatServesTheShapeKeepsTheEngineFromMakingAnother() throws {
        let folder = TemporaryFolder()
        let store = try Plan.makeStore(folder, count: 50)
        defer { store.close() }
        try store.declareIndexes([IndexDeclaration(entitySet: "Agencies", properties: ["City", "Name"])])
        for _ in 0..<LocalStore.automaticIndexThreshold { _ = try store.execute(method: "GET", url: "Agencies?$filter=City eq 'C1'") }
        #expect(try store.createAutomaticIndexes().isEmpty)
        #expect(try store.indexes().map(\.origin) == [.declared])
        // Declaring what the engine made turns it into a declared index.
        for _ in 0..<LocalStore.automaticIndexThreshold { _ = try store.execute(method: "GET", url: "Agencies?$filter=Name eq 'x'") }
        #expect(try store.createAutomaticIndexes().map(\.origin) == [.automatic])
        try store.declareIndexes([IndexDeclaration(entitySet: "Agencies", properties: ["Name"])])
        #expect(try store.indexes().map(\.origin) == [.declared, .declared])
        #expect(try store.indexes().last?.reason == "declared by the app")
    }

    /// A shape makes the job due once a session: a shape an index already serves, read on and on,
    /// must not start a write transaction every ten reads (issue 32's read benchmarks found it).
    @Test func aShapeMakesTheJobDueOnceASession() {
        let counter = ReadShapeCounter(dueAt: 10)
        let served = ReadShape(entitySet: "Agencies", properties: ["Name"])
        for _ in 0..<9 { counter.record(served) }
        #expect(!counter.takeDue())
        counter.record(served)
        #expect(counter.takeDue())
        #expect(counter.take() == [served: 10])
        for _ in 0..<100 { counter.record(served) }
        #expect(!counter.takeDue(), "the same shape again, after its counts were written down")
        #expect(counter.take() == [served: 100], "later reads still count")
        let other = ReadShape(entitySet: "Agencies", properties: ["City"])
        for _ in 0..<10 { counter.record(other) }
        #expect(counter.takeDue(), "another shape still makes it due")
    }

    @Test func aThresholdBelowOneIsRefused() throws {
        let folder = TemporaryFolder()
        let store = try Plan.makeStore(folder, count: 3)
        defer { store.close() }
        #expect { try store.createAutomaticIndexes(threshold: 0) } throws: { ($0 as? ODataError)?.code == .misuse }
    }
}
