/// One piece of work submitted to an ``ODataStore``: held while the store opens, then given a
/// lane, run there, and completed once.
///
/// The store's machinery (``ODataStore/submit(_:)``) knows nothing of what a job does: it asks
/// for the lane, runs the job once its ``handle`` began, and completes it. The steps are apart so
/// that a group of local writes can run each inside one transaction and complete them all after
/// the commit (``ODataStore/LocalWriteGroup``).
protocol StoreJob: AnyObject, Sendable {
    /// Cancels the job; its ``RequestHandle/begin()`` decides who completes it.
    var handle: RequestHandle { get }
    /// Decides, on the open store, where the job runs (and keeps what deciding that worked out,
    /// such as a request's resolution and route, for ``run(on:)``). Called once, before ``run(on:)``.
    func lane(on dispatcher: RequestDispatcher) -> StoreLane
    /// Does the work and keeps its result, without completing: runs only after `handle.begin()`
    /// returned true.
    func run(on dispatcher: RequestDispatcher)
    /// Completes with the result ``run(on:)`` kept, or with `groupFailure` when the commit of the
    /// job's write group failed (its change is then not in the store).
    func complete(groupFailure: ODataError?)
    /// Completes with `error` without running (the store failed to open, or is closed).
    func fail(_ error: ODataError)
}

extension StoreJob {
    /// Runs the job and completes it at once: what every job not in a write group does.
    func runAndComplete(on dispatcher: RequestDispatcher) {
        run(on: dispatcher)
        complete(groupFailure: nil)
    }
}
