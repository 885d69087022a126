#if canImport(Glibc)
import Glibc
#endif

/// What the progress bar says of a transfer beyond its count: the bytes so far, the rate, and when
/// the total is known, an estimate of the time left. It measures from its making (per defining
/// request), on the monotonic clock.
struct TransferMeter {
    private var started = TransferMeter.now()

    /// Starts measuring again (the next defining request).
    mutating func restart() { started = Self.now() }

    /// "12.3 KB, 840 entities/s, 3 pages, about 2 s left": the estimate only with a total.
    func detail(done: Int, total: Int?, bytes: Int, pages: Int, noun: String) -> String {
        let seconds = max(Self.now() - started, 0.001)
        let rate = Double(done) / seconds
        var parts = [Self.bytesText(bytes), "\(Int(rate.rounded())) \(noun)/s", counted(pages, "page")]
        if let total, total > done, rate > 0 {
            parts.append("about \(Int((Double(total - done) / rate).rounded(.up))) s left")
        }
        return parts.joined(separator: ", ")
    }

    /// Bytes for people: "512 B", "12.3 KB", "4.5 MB" (powers of 1024).
    static func bytesText(_ bytes: Int) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(bytes) B" }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units.indices.contains(unit) ? units[unit] : "B")"
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
