#if canImport(Glibc)
import Glibc
#endif

/// Runs an ``XMLRecorder`` on a thread of its own, a few parts ahead of the reader, so that
/// libxml2's parse of the next chunks and the CSDL reader's walk of this one overlap instead of
/// taking turns (for a large document about as much time goes to each).
///
/// Parts go round: the parsing thread takes a spare part, records into it and queues it; the
/// reader takes queued parts in order and gives each back once walked. Each part is touched by
/// one thread at a time, handed over under the lock; memory stays at ``partCount`` parts. The
/// parsing thread routes libxml2's errors to a capture of its own (libxml2 keeps handlers per
/// thread), puts the first into the part it stops at, and ends after the last part.
final class XMLParseAhead: @unchecked Sendable {
    /// Parts in circulation: the one being walked, the one being recorded, and up to six ready
    /// (about 2 MB in all for a document of any size). The parse can run well ahead, so a thread
    /// that waits for the CPU on a busy machine does not hold the other up at every part.
    private static let partCount = 8

    private let recorder: XMLRecorder
    private let state = ConditionLock()
    /// Guarded by `state`: recorded parts in document order, not yet taken by the reader.
    private var ready: [RecordedPart] = []
    /// Guarded by `state`: parts free for recording.
    private var spare: [RecordedPart] = []
    /// Guarded by `state`: the reader is gone; the parsing thread stops at its next part.
    private var isCancelled = false
    private var thread: pthread_t?

    /// Starts the parsing thread; nil when the system refuses one (the caller parses inline).
    init?(recorder: XMLRecorder) {
        self.recorder = recorder
        spare = (0..<XMLParseAhead.partCount).map { _ in RecordedPart() }
        guard let thread = spawnThread({ [self] in parse() }) else { return nil }
        self.thread = thread
    }

    /// The next recorded part, in document order (waits for it). `walked` is the part the
    /// reader is done with; it goes back for recording.
    func next(returning walked: RecordedPart?) -> RecordedPart {
        state.withLock {
            if let walked {
                spare.append(walked)
                state.broadcast()
            }
            while ready.isEmpty { state.wait() }
            return ready.removeFirst()
        }
    }

    /// Stops the parsing thread (after the part it is recording) and waits for it to end.
    /// Called once, by the reader, before the recorder goes.
    func finish() {
        state.withLock {
            isCancelled = true
            state.broadcast()
        }
        if let thread { pthread_join(thread, nil) }
        thread = nil
    }

    private func parse() {
        let routing = ThreadXMLErrorRouting()
        while let part = takeSpare() {
            recorder.recordPart(into: part, capture: routing.capture)
            let isLast = part.outcome.isLast
            state.withLock {
                ready.append(part)
                state.broadcast()
            }
            if isLast { break }
        }
    }

    /// A spare part (waits for one); nil once the reader is gone.
    private func takeSpare() -> RecordedPart? {
        state.withLock {
            while spare.isEmpty && !isCancelled { state.wait() }
            return isCancelled ? nil : spare.removeLast()
        }
    }
}
