/// Live queries: a local read whose answer is delivered again whenever a committed transaction
/// changed it (docs/ARCHITECTURE.md, "Live queries").
extension ODataStore {
    /// The default least time between two runs of one watched read, in seconds (30 ms).
    public static let defaultLiveQueryInterval = 0.03

    /// Watches the local read `url`: `handler` gets the current answer at once, then each new one
    /// after a commit changed it (a local write, a download, an upload, undo, another handle or
    /// process writing the file), on a thread of the store's, one call at a time.
    ///
    /// - A commit that changed none of the tables the read depends on does not run it again; a
    ///   run whose answer equals the last one delivered delivers nothing; runs are at least
    ///   `interval` seconds apart (commits meanwhile join one run), and the last run starts after
    ///   the last commit, so the final state always comes.
    /// - A failed read (an entity that is no longer there: ``ODataError/Code/notFound``) is an
    ///   answer too: the watch goes on, and delivers the entity again if it comes back.
    /// - Waits until the store is open. Keep the ``LiveQuery`` and call ``LiveQuery/cancel()`` to
    ///   stop; closing the store stops every watch.
    ///
    /// - Throws: ``ODataError/Code/unsupported`` for a request that is not a read the offline store
    ///   answers (a write, one routed to the service, `$metadata`, `$batch`), the parser's or
    ///   binder's error for a URL they refuse, ``ODataError/Code/misuse`` once the store is closed
    ///   or without a store file.
    public func watch(_ url: String, interval: Double = ODataStore.defaultLiveQueryInterval,
                      _ handler: @escaping @Sendable (Result<StoreResponse, ODataError>) -> Void) throws(ODataError) -> LiveQuery {
        try startWatch(url, interval: interval, deliver: handler, onEnd: {})
    }

    /// The answers of the local read `url` as an `AsyncSequence`: the current one at once, then
    /// each new one after a commit changed it (see ``watch(_:interval:_:)``). A failed read ends
    /// the sequence with its error; ending the loop or cancelling its task stops the watch, and
    /// closing the store ends the sequence.
    ///
    /// ```swift
    /// for try await answer in try store.watch("TravelagencyCollection?$filter=city eq 'Boston'") {
    ///     show(answer.body)
    /// }
    /// ```
    public func watch(_ url: String, interval: Double = ODataStore.defaultLiveQueryInterval) throws(ODataError) -> LiveAnswers {
        let (stream, continuation) = AsyncThrowingStream<StoreResponse, any Error>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let query = try startWatch(url, interval: interval, deliver: { answer in
            switch answer {
            case .success(let response): continuation.yield(response)
            case .failure(let error): continuation.finish(throwing: error)
            }
        }, onEnd: { continuation.finish() })
        continuation.onTermination = { _ in query.cancel() }
        return LiveAnswers(stream: stream, query: query)
    }

    /// Checks `url` is a local read, computes what it depends on and registers it with the hub.
    func startWatch(_ url: String, interval: Double,
                    deliver: @escaping @Sendable (Result<StoreResponse, ODataError>) -> Void,
                    onEnd: @escaping @Sendable () -> Void) throws(ODataError) -> LiveQuery {
        guard interval.isFinite, interval >= 0 else {
            throw ODataError(.misuse, "a live query's interval is a number of seconds, 0 or more (got \(interval))")
        }
        let dispatcher = try dispatcherOnceOpen()
        let plan = try Self.livePlan(of: url, on: dispatcher)
        let local = try dispatcher.requireOffline("watching a read")
        // After a model adoption the read is planned again on the store's new dispatcher.
        let replan: @Sendable () -> Result<LiveQueryHub.Plan, ODataError>? = { [weak self] in
            guard let dispatcher = self?.openDispatcher() else { return nil }
            do throws(ODataError) {
                return .success(try Self.livePlan(of: url, on: dispatcher))
            } catch {
                return .failure(error)
            }
        }
        guard let hub = liveQueries.hub(for: local.file),
              let watcher = hub.add(plan: plan, interval: interval, replan: replan, deliver: deliver, onEnd: onEnd)
        else { throw Self.closedError }
        return LiveQuery(hub: hub, watcher: watcher)
    }
}

extension ODataStore {
    /// Checks `url` is a local read of `dispatcher`'s store and computes what it runs and depends on.
    static func livePlan(of url: String, on dispatcher: RequestDispatcher) throws(ODataError) -> LiveQueryHub.Plan {
        let resolved = dispatcher.resolve(ODataRequest(url: url), method: .get)
        let route = dispatcher.router.route(resolved)
        guard route.destination == .offline else {
            throw ODataError(.unsupported, "'\(url)' is answered by the service, not the store file (\(route.reason)): "
                             + "only local reads can be watched")
        }
        let local = try dispatcher.requireOffline("watching a read")
        let bound = try resolved.boundForOfflineStore()
        switch bound.target {
        case .collection, .entity, .property, .count: break
        default:
            throw ODataError(.unsupported, "'\(url)' is not a read of stored entities: only reads of entity sets, entities, "
                             + "their properties and counts can be watched")
        }
        let dependencies = try local.liveDependencies(of: bound)
        return LiveQueryHub.Plan(dependencies: dependencies, read: { () throws(ODataError) -> StoreResponse in try local.read(resolved) })
    }
}

/// The answers of a watched read, as an `AsyncSequence` (``ODataStore/watch(_:interval:)``). When
/// the loop is slower than the answers, it gets the newest one (answers it has not taken are
/// replaced, never queued).
public struct LiveAnswers: AsyncSequence, Sendable {
    public typealias Element = StoreResponse
    let stream: AsyncThrowingStream<StoreResponse, any Error>
    /// The watch, for its counts and to stop it without ending the loop.
    public let query: LiveQuery

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<StoreResponse, any Error>.AsyncIterator
        public mutating func next() async throws -> StoreResponse? { try await base.next() }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: stream.makeAsyncIterator()) }
}
