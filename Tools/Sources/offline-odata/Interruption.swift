#if canImport(Glibc)
import Glibc
#endif
import Synchronization
@_spi(Tool) import OfflineOData

/// SIGINT (Ctrl-C) and SIGTERM during a download or an upload: the operation is cancelled and
/// stops at a safe point (a download ends its transfer, keeping the pages stored so far; an
/// upload stops after the request in flight is answered), the command says so, closes the store
/// and exits with 128 + the signal's number (130, 143), as a shell reports a process a signal ended.
///
/// The handler only writes the signal's number into a pipe (all a handler may safely do); the
/// command's thread waits on that pipe for either the signal or the operation's end. A second
/// signal finds the default disposition again and ends the process at once, as kill would:
/// nothing is lost then either (the store survives a kill), only the store is left open.
enum Interruption {
    /// The exit code of a command a signal stopped.
    static func exitCode(for signal: Int32) -> Int32 { 128 + signal }

    /// The signal's name for messages.
    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(signal)"
        }
    }

    /// Whether a signal asked the command to stop: an upload's progress closure answers "stop"
    /// with it, so the upload ends after the request in flight is answered (cancelling the
    /// transfer would leave that request in doubt).
    static var isRequested: Bool { stopRequested.load(ordering: .acquiring) }

    /// Runs `operation` on `store` and waits for it; a SIGINT or SIGTERM meanwhile stops it:
    /// with `cancelsTransfer` (a download) the operation is cancelled at once, else (an upload)
    /// only ``isRequested`` is set for its progress closure to stop it. Gives the operation's
    /// result and the signal that arrived, if one did.
    static func perform<Output>(_ operation: StoreOperation<Output>, on store: ODataStore, cancelsTransfer: Bool)
        -> (result: Result<Output, ODataError>, signal: Int32?) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else {
            // No pipe, no interruption: the operation runs as any other.
            return (Result { () throws(ODataError) in try store.performAndWait(operation) }, nil)
        }
        let (readEnd, writeEnd) = (ends[0], ends[1])
        interruptionPipe = writeEnd
        signal(SIGINT, onSignal)
        signal(SIGTERM, onSignal)
        let box = WaitingState(Result<Output, ODataError>?.none)
        let handle = store.start(operation) { result in
            box.value = result
            var done: UInt8 = 0
            _ = write(writeEnd, &done, 1)
        }
        var received: Int32?
        while true {
            var byte: UInt8 = 0
            let count = read(readEnd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            // The pipe failed (it cannot, short of a bug): the operation's end is waited for below.
            guard count == 1, byte != 0 else { break }
            if received == nil {
                received = Int32(byte)
                if cancelsTransfer { handle.cancel() }
            }
        }
        // The completion wrote to the pipe after setting the result: the read above ordered the two.
        while box.value == nil {
            var byte: UInt8 = 0
            if read(readEnd, &byte, 1) <= 0 && errno != EINTR { break }
        }
        // Later signals only reach the pipe (left open: the process ends soon) and end nothing.
        return (box.value ?? .failure(ODataError(.aborted, "the operation's end was not seen")), received)
    }
}

extension Interruption {
    /// For a command that runs until it is stopped (`watch`): a pipe that SIGINT and SIGTERM write
    /// their number to from now on, and that another thread may write 0 to (``wake(_:)``) to end
    /// ``waitForSignal(on:)``. Nil when no pipe can be made.
    static func signalPipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        interruptionPipe = ends[1]
        signal(SIGINT, onSignal)
        signal(SIGTERM, onSignal)
        return (ends[0], ends[1])
    }

    /// Blocks until a signal or a wake reaches the pipe; the signal's number, nil for a wake.
    static func waitForSignal(on readEnd: Int32) -> Int32? {
        while true {
            var byte: UInt8 = 0
            let count = read(readEnd, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count == 1 else { return nil }
            return byte == 0 ? nil : Int32(byte)
        }
    }

    /// Ends a ``waitForSignal(on:)`` from another thread.
    static func wake(_ writeEnd: Int32) {
        var done: UInt8 = 0
        _ = write(writeEnd, &done, 1)
    }
}

/// The pipe's write end, for the signal handler (which can capture nothing).
nonisolated(unsafe) private var interruptionPipe: Int32 = -1
/// Set by the signal handler (an atomic store is safe there), read by progress closures.
private let stopRequested = Atomic<Bool>(false)

/// Tells the waiting thread, and puts the default disposition back so a second signal ends the process.
private let onSignal: @convention(c) (Int32) -> Void = { number in
    stopRequested.store(true, ordering: .releasing)
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(interruptionPipe, &byte, 1)
    signal(number, SIG_DFL)
}
