/// One thing an ``ODataStore`` does, as a value: ``ODataStore/start(_:completion:)`` (a
/// completion closure), ``ODataStore/perform(_:)`` (`async`) and
/// ``ODataStore/performAndWait(_:)`` (blocking) run any of them.
///
/// ```swift
/// let status = try await store.perform(.status)
/// let outcomes = try await store.perform(.download(DownloadOptions(full: true)))
/// store.start(.upload()) { result in print(result) }
/// ```
///
/// Each operation is written once, as a static member (`.request(_:)`, `.download(_:)`,
/// `.status`, ...). It holds where it runs and its work, so the store runs all of them the same
/// way, with no code of its own per operation.
public struct StoreOperation<Output: Sendable>: Sendable {
    /// What the operation does on an open store: its lane and its work, decided together once the
    /// store is open, so that what choosing the lane worked out (a request's resolution and route)
    /// is the work's too.
    struct Plan: Sendable {
        let lane: StoreLane
        let work: @Sendable (StoreOperationContext) throws(ODataError) -> Output
    }

    let plan: @Sendable (RequestDispatcher) -> Plan

    /// An operation whose plan depends on the open store.
    init(planning plan: @escaping @Sendable (RequestDispatcher) -> Plan) {
        self.plan = plan
    }

    /// An operation that always runs on `lane`.
    init(lane: StoreLane, _ work: @escaping @Sendable (StoreOperationContext) throws(ODataError) -> Output) {
        let plan = Plan(lane: lane, work: work)
        self.plan = { _ in plan }
    }
}
