@_spi(Tool) import OfflineOData

/// `upload --dry-run` as text: each step numbered, then its HTTP request as it would go out
/// (request line, headers, an empty line, the body), then a line saying nothing was sent.
enum UploadPreviewText {
    static func text(_ preview: UploadPreview) -> String {
        var lines: [String] = []
        for (number, step) in preview.steps.enumerated() {
            var title = "\(number + 1). \(step.kind.rawValue)"
            if !step.requestIDs.isEmpty { title += " (queued \(step.requestIDs.count == 1 ? "request" : "requests") "
                + step.requestIDs.map(String.init).joined(separator: ", ") + ")" }
            if !step.changeSets.isEmpty {
                title += ", change sets " + step.changeSets.map { "[" + $0.map(String.init).joined(separator: ", ") + "]" }.joined(separator: " ")
            }
            lines.append(title)
            if !step.note.isEmpty { lines.append("   note: \(step.note)") }
            if let request = step.request {
                lines.append("   \(request.method) \(request.url)")
                for header in request.headers {
                    let mark = header.shown == .exact ? "" : "   (\(header.shown.rawValue))"
                    lines.append("   \(header.name): \(header.value)\(mark)")
                }
                if let body = request.body {
                    lines.append("")
                    // A $batch body's lines end with CRLF (one Character in Swift), shown as plain lines.
                    lines += body.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map { "   " + $0 }
                }
            }
            lines.append("")
        }
        let sent = preview.requests.count
        lines.append("dry run: nothing was sent; the upload would send \(sent) HTTP \(sent == 1 ? "request" : "requests")"
                     + (preview.steps.isEmpty ? " (the queue is empty)" : ""))
        return lines.joined(separator: "\n")
    }
}
