#if canImport(Glibc)
import Glibc
#endif

/// A one-line progress display, drawn only on a terminal, never into a pipe or a file, so scripts
/// and logs get only the final lines.
///
/// It goes to standard error when that is a terminal (so `download ... > log` still shows it and
/// the log stays clean), else to standard output when that is one (a driver that reads standard
/// error, like the demo, still shows it), else nowhere.
struct ProgressBar {
    private let descriptor: Int32? = isatty(2) == 1 ? 2 : isatty(1) == 1 ? 1 : nil
    var isEnabled: Bool { descriptor != nil }
    private var lastLength = 0

    /// Redraws the line: `label [#####-----] done/total detail`, or without the bar when the total is unknown.
    mutating func show(_ label: String, done: Int, total: Int?, detail: String = "") {
        guard isEnabled else { return }
        var line = label + " "
        if let total, total > 0 {
            let width = 30
            let filled = min(width, done * width / total)
            line += "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] \(done)/\(total)"
        } else {
            line += "\(done)"
        }
        if !detail.isEmpty { line += " " + detail }
        let padding = max(0, lastLength - line.count)
        lastLength = line.count
        writeToTerminal("\r" + line + String(repeating: " ", count: padding))
    }

    /// Ends the line, so the next output starts on a fresh one.
    mutating func finish() {
        guard isEnabled, lastLength > 0 else { return }
        writeToTerminal("\n")
        lastLength = 0
    }

    private func writeToTerminal(_ text: String) {
        guard let descriptor else { return }
        var copy = text
        copy.withUTF8 { buffer in _ = write(descriptor, buffer.baseAddress, buffer.count) }
    }
}
