/// Told how much of a request's body file (``HTTPRequest/bodyFile``: a media stream, issue 35)
/// has been handed to the connection while it travels, so a large upload reports bytes before it
/// ends. Called on the thread that sends the request, inside the transfer: the callee must not
/// use the transport (it is busy with this transfer). It never stops the transfer; an upload stops
/// between requests, as before.
package final class HTTPBodyFileProgress: @unchecked Sendable {
    /// The least bytes between two reports (1 MiB), and the last chunk always.
    package static let step: Int64 = 1 << 20
    private let report: (_ sent: Int64, _ length: Int64) -> Void
    /// Touched only by the one transfer that reads the file, on its thread.
    private var reported: Int64 = 0

    package init(report: @escaping (_ sent: Int64, _ length: Int64) -> Void) {
        self.report = report
    }

    /// `sent` of the file's `length` bytes are with the connection now.
    func advance(to sent: Int64, of length: Int64) {
        guard sent - reported >= Self.step || (sent == length && sent > reported) else { return }
        reported = sent
        report(sent, length)
    }
}
