
/// One request or operation on an ``ODataStore``: what the completion-closure calls return, so the
/// caller can cancel.
///
/// Its completion runs exactly once. Cancelling a request that has not started (held while the
/// store opens, or queued behind others) completes it at once with ``ODataError/Code/aborted``
/// and it never runs. Cancelling one that runs stops what can be stopped, with nothing lost: an
/// online request or a download ends its transfer at once; an upload stops after the request in
/// flight is answered (one cut off might have been applied and would be sent twice); both then
/// complete with ``ODataError/Code/aborted``. A local read or write, which takes milliseconds,
/// finishes and completes normally.
public final class RequestHandle: Sendable {
    private enum Phase { case pending, running, finished, cancelled }

    private let phase = Protected<Phase>(.pending)
    /// Completes the request with ``ODataError/Code/aborted`` if it is cancelled before it starts.
    private let abort = Protected<(@Sendable () -> Void)?>(nil)
    /// Stops a running transfer with the service.
    let cancellation = HTTPCancellation()

    init() {}

    /// Asks the request to stop; harmless after it completed, and when called twice.
    public func cancel() {
        let abortNow = phase.withLock { phase -> Bool in
            switch phase {
            case .pending:
                phase = .cancelled
                return true
            case .running:
                cancellation.cancel()
                return false
            case .finished, .cancelled:
                return false
            }
        }
        if abortNow, let completeAborted = abort.withLock({ $0.take() }) { completeAborted() }
    }

    /// Whether ``cancel()`` was called (before or while it ran).
    public var isCancelled: Bool {
        phase.withLock { $0 == .cancelled } || cancellation.isCancelled
    }

    /// Sets how a cancellation before the start completes the request.
    func onAbort(_ completeAborted: @escaping @Sendable () -> Void) {
        abort.withLock { $0 = completeAborted }
    }

    /// Moves from pending to running; false when it was cancelled (and has completed) already, or
    /// was started before. Whoever gets true owns the completion.
    func begin() -> Bool {
        let started = phase.withLock { phase -> Bool in
            guard phase == .pending else { return false }
            phase = .running
            return true
        }
        if started { abort.withLock { $0 = nil } }
        return started
    }

    func finish() {
        phase.withLock { $0 = .finished }
    }
}
