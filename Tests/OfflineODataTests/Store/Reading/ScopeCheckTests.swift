import Testing
@_spi(Tool) @testable import OfflineOData

/// Whether a read is provably inside a defining request's scope.
@Suite struct ScopeCheckTests {
    @Test func conjunctionsOfComparisonsOnTheSameSet() throws {
        let reader = try ReadTestStore().reader
        func inside(_ read: String, _ defining: String) throws -> Bool { try reader.isInsideScope(url: read, definingRequest: defining) }
        #expect(try inside("Agencies?$filter=City eq 'Rome'", "Agencies"))
        #expect(try inside("Agencies?$filter=City eq 'Rome' and Rating gt 3", "Agencies?$filter=City eq 'Rome'"))
        #expect(try !inside("Agencies?$filter=City eq 'Beijing'", "Agencies?$filter=City eq 'Rome'"))
        #expect(try !inside("Agencies", "Agencies?$filter=City eq 'Rome'"))
        #expect(try !inside("Bookings", "Agencies"))
        #expect(try inside("Agencies?$filter=Rating gt 4", "Agencies?$filter=Rating ge 3"))
        #expect(try inside("Agencies?$filter=Rating ge 4", "Agencies?$filter=Rating gt 3"))
        #expect(try !inside("Agencies?$filter=Rating ge 3", "Agencies?$filter=Rating gt 3"))
        #expect(try inside("Agencies?$filter=3 lt Rating", "Agencies?$filter=Rating gt 2"))
        #expect(try inside("Agencies?$filter=Revenue gt 10.5", "Agencies?$filter=Revenue gt 9.75"))
        #expect(try !inside("Agencies?$filter=Revenue gt 9.5", "Agencies?$filter=Revenue gt 9.75"))
        #expect(try inside("Agencies?$filter=City eq 'Rome'", "Agencies?$filter=City in ('Rome','Paris')"))
        #expect(try inside("Agencies?$filter=City in ('Paris')", "Agencies?$filter=City ne 'Oslo'"))
        #expect(try inside("Agencies(3)", "Agencies?$filter=ID lt 5"))
        #expect(try !inside("Agencies(6)", "Agencies?$filter=ID lt 5"))
        #expect(try inside("Agencies?$filter=Founded gt 2020-06-01T00:00:00Z", "Agencies?$filter=Founded gt 2020-01-01T00:00:00%2B01:00"))
        #expect(try inside("Agencies?$filter=startswith(Name,'A') and Rating eq 2", "Agencies?$filter=startswith(Name,'A')"))
        #expect(try !inside("Agencies?$filter=City eq 'Rome' or Rating gt 3", "Agencies?$filter=City eq 'Rome'"))
        #expect(try !inside("Agencies(1)/Bookings", "Bookings"))
    }

    /// A defining request's `$search` is proven by the same search only; a read's own `$search`
    /// only narrows it.
    @Test func searchesNarrowAndAreProvenByTheSameSearch() throws {
        let reader = try ReadTestStore().reader
        func inside(_ read: String, _ defining: String) throws -> Bool { try reader.isInsideScope(url: read, definingRequest: defining) }
        #expect(try inside("Agencies?$search=rome", "Agencies"))
        #expect(try inside("Agencies?$search=rome&$filter=Rating gt 3", "Agencies?$search=ROME"))
        #expect(try !inside("Agencies", "Agencies?$search=rome"))
        #expect(try !inside("Agencies?$search=paris", "Agencies?$search=rome"))
    }
}
