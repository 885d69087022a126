/// What the offline store would do for a read, and whether its defining requests cover it.
public struct StoreExplanation: Sendable, Equatable {
    /// The one SQL statement of the read, with `?n` parameters.
    public var sql: String
    /// The parameters' values, as SQL literals (for reading only: values are always bound).
    public var parameters: [String]
    /// The statement that counts the result, when the read asks for a count.
    public var countSQL: String?
    /// The defining requests that provably hold every entity the read can return; empty when
    /// none does, in which case the service may have entities the store lacks.
    public var insideDefiningRequests: [String]
    /// The plan SQLite chooses for the statement (`EXPLAIN QUERY PLAN`), one line per step: the
    /// index a read searches (`SEARCH t0 USING INDEX es/Agencies/index/City (City=?)`) or a scan.
    public var plan: [String] = []

    public var isInsideScope: Bool { !insideDefiningRequests.isEmpty }
}
