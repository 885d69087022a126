#if canImport(Glibc)
import Glibc
#endif

/// The current time in UTC as ISO 8601 with milliseconds (`2026-11-22T03:04:05.678Z`), for the
/// store's bookkeeping (when a request was queued, when a download finished). Every local write
/// stamps its queued request, so the text is written digit by digit (``paddedText(_:)``).
func utcTimestamp() -> String {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var seconds = now.tv_sec
    var parts = tm()
    gmtime_r(&seconds, &parts)
    return paddedText([(Int(parts.tm_year) + 1900, 4, "-"), (Int(parts.tm_mon) + 1, 2, "-"), (Int(parts.tm_mday), 2, "T"),
                       (Int(parts.tm_hour), 2, ":"), (Int(parts.tm_min), 2, ":"), (Int(parts.tm_sec), 2, "."),
                       (Int(now.tv_nsec / 1_000_000), 3, "Z")])
}

/// The current time as an HTTP date (RFC 9110 IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`).
func httpDateNow() -> String {
    var seconds = time(nil)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    let day = days.indices.contains(Int(parts.tm_wday)) ? days[Int(parts.tm_wday)] : "Sun"
    let month = months.indices.contains(Int(parts.tm_mon)) ? months[Int(parts.tm_mon)] : "Jan"
    return "\(day), \(two(parts.tm_mday)) \(month) \(parts.tm_year + 1900) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
}

/// Seconds from a timestamp of ``utcTimestamp()``'s form (`2026-11-22T03:04:05.678Z`) to now,
/// at least 0 (a clock set back); nil for text in another form.
func secondsSince(_ timestamp: String) -> Double? {
    let digits = Array(timestamp.utf8)
    func number(_ range: Range<Int>) -> Int32? {
        var value: Int32 = 0
        for index in range {
            guard digits.indices.contains(index), (48...57).contains(digits[index]) else { return nil }
            value = value * 10 + Int32(digits[index] - 48)
        }
        return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
          let minute = number(14..<16), let second = number(17..<19) else { return nil }
    var parts = tm()
    parts.tm_year = year - 1900
    parts.tm_mon = month - 1
    parts.tm_mday = day
    parts.tm_hour = hour
    parts.tm_min = minute
    parts.tm_sec = second
    let fraction = Double(number(20..<23) ?? 0) / 1000
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    let then = Double(timegm(&parts)) + fraction
    return max(0, Double(now.tv_sec) + Double(now.tv_nsec) / 1e9 - then)
}
