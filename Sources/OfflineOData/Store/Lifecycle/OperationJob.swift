/// The ``StoreJob`` of one ``StoreOperation``: plans it on the open store, runs it, and hands its
/// result to the caller's completion.
///
/// Its plan and result are set by one thread at a time: ``lane(on:)`` before the job is queued on
/// its lane, ``run(on:)`` on the lane's thread, ``complete(groupFailure:)`` after it; the lanes'
/// queues (and the store's lock, for a write group) order those steps.
final class OperationJob<Output: Sendable>: StoreJob, @unchecked Sendable {
    let handle: RequestHandle
    private let operation: StoreOperation<Output>
    private let completion: @Sendable (Result<Output, ODataError>) -> Void
    private let events: EventHub
    private let options: ODataStore.Options
    private weak var store: ODataStore?
    private var plan: StoreOperation<Output>.Plan?
    private var result: Result<Output, ODataError>?
    private var changedSets: Set<String> = []

    init(_ operation: StoreOperation<Output>, handle: RequestHandle, store: ODataStore,
         completion: @escaping @Sendable (Result<Output, ODataError>) -> Void) {
        self.operation = operation
        self.handle = handle
        self.completion = completion
        self.events = store.eventHub
        self.options = store.options
        self.store = store
    }

    func lane(on dispatcher: RequestDispatcher) -> StoreLane {
        let plan = operation.plan(dispatcher)
        self.plan = plan
        return plan.lane
    }

    func run(on dispatcher: RequestDispatcher) {
        guard let plan else {
            result = .failure(ODataError(.internalError, "a store job ran before its lane was decided"))
            return
        }
        let context = StoreOperationContext(dispatcher: dispatcher, handle: handle, events: events, options: options, store: store)
        do throws(ODataError) {
            result = .success(try plan.work(context))
        } catch {
            result = .failure(error)
        }
        changedSets = context.changedSets
    }

    func complete(groupFailure: ODataError?) {
        let final = groupFailure.map { .failure($0) }
            ?? result ?? .failure(ODataError(.internalError, "a store job completed before it ran"))
        // Announced once committed: a local write's group commits before its completions run.
        if case .success = final, !changedSets.isEmpty { events.postChanges(changedSets) }
        completion(final)
    }

    func fail(_ error: ODataError) { completion(.failure(error)) }
}
