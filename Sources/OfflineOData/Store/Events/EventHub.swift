#if canImport(Glibc)
import Glibc
#endif

/// Delivers a store's events to its subscribers on a thread of its own, coalescing changes.
///
/// **The bound on change events.** "Entity sets changed" events are merged: changes posted while
/// one is waiting to be delivered join it, and two change events are at least `changeInterval`
/// seconds apart. So any burst of writes lasting `t` seconds yields at most `1 + t / changeInterval`
/// change events, whatever its size. A download adds to that at most one change per defining
/// request, because its entities become visible (and are announced) only when the defining
/// request's transaction commits, never page by page.
///
/// Other events keep their order and are not merged. The hub also runs completions that must not
/// run on the caller's thread (a request cancelled before it started).
final class EventHub: @unchecked Sendable {
    typealias Handler = @Sendable (StoreEvent) -> Void
    /// Runs once when the hub has delivered its last event (the store closed).
    typealias EndHandler = @Sendable () -> Void

    private enum Item {
        case event(StoreEvent)
        /// The place of the merged change event in the order; its sets are in `pendingSets`.
        case changes
        case call(@Sendable () -> Void)
    }

    private let changeInterval: Double
    private let state = ConditionLock()
    /// Guarded by `state`.
    private var items: [Item] = []
    private var pendingSets: Set<String> = []
    private var hasQueuedChanges = false
    private var lastChangeDelivery = -Double.infinity
    private var subscribers: [(id: Int, handler: Handler, onEnd: EndHandler?)] = []
    /// Set once the last event was delivered: later subscribers end at once.
    private var hasEnded = false
    /// Events of the store's opening posted while nobody was subscribed (``postOpening(_:)``),
    /// kept for the first subscriber.
    private var unseenOpeningEvents: [StoreEvent] = []
    private var nextID = 1
    private var isStopping = false
    /// Set when the delivery loop has taken its last item: nothing queued after runs.
    private var isDrained = false
    /// The delivery thread, once its loop runs: a handler that unsubscribes runs there.
    private var deliveryThread: pthread_t?
    private var worker: WorkerPool?

    init(changeInterval: Double, owner: StoreThreadMarker.Owner) {
        self.changeInterval = max(0, changeInterval)
        worker = WorkerPool(name: "events", threadCount: 1, owner: owner)
        worker?.submit { [self] in deliverLoop() }
    }

    /// Adds `handler`; returns the id that ``unsubscribe(_:)`` takes. `onEnd` runs once, after the
    /// last event the hub delivers (at once when the hub has already stopped), unless the
    /// subscriber is removed first.
    func subscribe(_ handler: @escaping Handler, onEnd: EndHandler? = nil) -> Int {
        let (id, endsNow) = state.withLock { () -> (Int, Bool) in
            defer { nextID += 1 }
            if hasEnded { return (nextID, true) }
            subscribers.append((nextID, handler, onEnd))
            if !unseenOpeningEvents.isEmpty {
                // Before anything queued: they happened first.
                let opening = unseenOpeningEvents
                unseenOpeningEvents = []
                items.insert(.call({ for event in opening { handler(event) } }), at: 0)
                state.broadcast()
            }
            return (nextID, false)
        }
        if endsNow { onEnd?() }
        return id
    }

    /// How many subscribers there are (for tests).
    var subscriberCount: Int { state.withLock { subscribers.count } }

    /// Removes a subscriber; events already being delivered to it may still arrive.
    /// Removes the subscriber once the events queued before this call have reached it, and
    /// waits for that: a program that ends its subscription right after a blocking upload returns
    /// has seen the upload's events (they are posted before its completion, delivered after), and
    /// no handler of it runs once this returns. On the hub's own thread (a handler ending its own
    /// subscription), or once the hub has delivered its last event, the removal is at once.
    func unsubscribe(_ id: Int) {
        let removal = Removal()
        let queued = state.withLock { () -> Bool in
            let onDeliveryThread = deliveryThread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
            guard !onDeliveryThread, !isDrained, !hasEnded else {
                subscribers.removeAll { $0.id == id }
                return false
            }
            items.append(.call({ [self] in
                state.withLock {
                    subscribers.removeAll { $0.id == id }
                    removal.isDone = true
                    state.broadcast()
                }
            }))
            state.broadcast()
            return true
        }
        guard queued else { return }
        state.withLock {
            while !removal.isDone && !isDrained { state.wait() }
            subscribers.removeAll { $0.id == id }
        }
    }

    /// Whether a queued removal has run; guarded by `state`.
    private final class Removal: @unchecked Sendable {
        var isDone = false
    }

    func post(_ event: StoreEvent) {
        state.withLock {
            guard !isStopping else { return }
            items.append(.event(event))
            state.broadcast()
        }
    }

    /// Posts a download's or an upload's progress, which comes once per page or request: with
    /// nobody subscribed it is dropped, as waking the event thread for each would cost a long
    /// upload measurably (the tool subscribes to nothing). Its own entry point, so that the
    /// event's case is never inspected (valgrind takes the reading of a payload enum's tag for
    /// a use of uninitialised bytes).
    func postProgress(_ event: StoreEvent) {
        state.withLock {
            guard !isStopping, !subscribers.isEmpty else { return }
            items.append(.event(event))
            state.broadcast()
        }
    }

    /// Posts an event of the store's opening (the check after an unclean shutdown). An app opens
    /// a store without waiting and subscribes after, which may be after the opening posted it:
    /// with nobody subscribed yet, the event waits for the first subscriber instead of being lost.
    func postOpening(_ event: StoreEvent) {
        state.withLock {
            guard !isStopping else { return }
            if subscribers.isEmpty {
                unseenOpeningEvents.append(event)
            } else {
                items.append(.event(event))
                state.broadcast()
            }
        }
    }

    /// Announces changed entity sets, merged with any announcement not yet delivered.
    func postChanges(_ sets: Set<String>) {
        guard !sets.isEmpty else { return }
        state.withLock {
            guard !isStopping else { return }
            pendingSets.formUnion(sets)
            if !hasQueuedChanges {
                hasQueuedChanges = true
                items.append(.changes)
            }
            state.broadcast()
        }
    }

    /// Runs `call` on the hub's thread, in order with the events.
    func run(_ call: @escaping @Sendable () -> Void) {
        let accepted = state.withLock { () -> Bool in
            guard !isStopping else { return false }
            items.append(.call(call))
            state.broadcast()
            return true
        }
        if !accepted { call() }
    }

    /// Delivers what is queued, then stops the thread.
    func shutDown() {
        state.withLock {
            isStopping = true
            state.broadcast()
        }
        worker?.shutDown()
        worker = nil
    }

    private func deliverLoop() {
        state.withLock { deliveryThread = pthread_self() }
        while true {
            let next: (StoreEvent?, (@Sendable () -> Void)?, [Handler])? = state.withLock {
                while true {
                    guard !items.isEmpty else {
                        if isStopping {
                            isDrained = true
                            state.broadcast()
                            return nil
                        }
                        state.wait()
                        continue
                    }
                    switch items[0] {
                    case .event(let event):
                        items.removeFirst()
                        return (event, nil, subscribers.map(\.handler))
                    case .call(let call):
                        items.removeFirst()
                        return (nil, call, [])
                    case .changes:
                        let due = lastChangeDelivery + changeInterval
                        let now = monotonicSeconds()
                        if now < due && !isStopping {
                            state.wait(until: due)
                            continue
                        }
                        items.removeFirst()
                        let sets = pendingSets
                        pendingSets = []
                        hasQueuedChanges = false
                        lastChangeDelivery = now
                        return (.entitySetsChanged(sets), nil, subscribers.map(\.handler))
                    }
                }
            }
            guard let next else {
                endSubscriptions()
                return
            }
            if let call = next.1 { call() }
            if let event = next.0 {
                for handler in next.2 { handler(event) }
            }
        }
    }

    /// Tells every subscriber that no event follows (the store closed), once.
    private func endSubscriptions() {
        let ends = state.withLock { () -> [EndHandler] in
            hasEnded = true
            defer { subscribers.removeAll() }
            return subscribers.compactMap(\.onEnd)
        }
        for end in ends { end() }
    }
}
