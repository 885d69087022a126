#if canImport(Glibc)
import Glibc
#endif

/// What the progress bar says of a transfer beyond its count: the bytes so far, the rate, and when
/// the total is known, an estimate of the time left. It measures from its making (per defining
/// request of a download, per upload), on the monotonic clock.
struct TransferMeter {
    private var started = TransferMeter.now()

    /// Starts measuring again (the next defining request).
    mutating func restart() { started = Self.now() }

    /// "12.3 KB, 840 entities/s, 3 pages, about 2 s left": the estimate only with a total.
    func detail(done: Int, total: Int?, bytes: Int, pages: Int, noun: String) -> String {
        let rate = Double(done) / elapsedSeconds
        var parts = [Self.bytesText(bytes), "\(Int(rate.rounded())) \(noun)/s", counted(pages, "page")]
        if let left = Self.secondsLeft(done: done, total: total, rate: rate) { parts.append("about \(left) s left") }
        return parts.joined(separator: ", ")
    }

    /// An upload's: "12.3 KB sent, 4.1 KB received, 8 requests/s, 5.2 KB/s, about 3 s left"; the
    /// bytes are the request and answer bodies, the byte rate counts both.
    func uploadDetail(done: Int, total: Int, bytesSent: Int, bytesReceived: Int) -> String {
        let seconds = elapsedSeconds
        let rate = Double(done) / seconds
        let byteRate = Double(bytesSent + bytesReceived) / seconds
        var parts = [Self.bytesText(bytesSent) + " sent", Self.bytesText(bytesReceived) + " received",
                     "\(Int(rate.rounded())) requests/s", Self.bytesText(Int(byteRate.rounded())) + "/s"]
        if let left = Self.secondsLeft(done: done, total: total, rate: rate) { parts.append("about \(left) s left") }
        return parts.joined(separator: ", ")
    }

    private var elapsedSeconds: Double { max(Self.now() - started, 0.001) }

    /// The time left at `rate`, when there is a total to reach.
    private static func secondsLeft(done: Int, total: Int?, rate: Double) -> Int? {
        guard let total, total > done, rate > 0 else { return nil }
        return Int((Double(total - done) / rate).rounded(.up))
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
