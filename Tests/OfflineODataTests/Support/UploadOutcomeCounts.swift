@_spi(Tool) @testable import OfflineOData

extension UploadOutcome {
    /// The outcome without its byte counts, which measure the wire (a scripted service's answers
    /// vary with the test), to compare with the outcome a test expects.
    var withoutBytes: UploadOutcome {
        var copy = self
        copy.bytesSent = 0
        copy.bytesReceived = 0
        return copy
    }
}
