#if canImport(Glibc)
import Glibc
#endif

/// The current time in UTC as ISO 8601 with milliseconds (`2026-11-22T03:04:05.678Z`), for the
/// store's bookkeeping (when a request was queued, when a download finished).
///
/// Written digit by digit into one fixed buffer: every local write stamps its queued request, and
/// padded pieces joined by interpolation cost more than the rest of the queue append.
func utcTimestamp() -> String {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    var seconds = now.tv_sec
    var parts = tm()
    gmtime_r(&seconds, &parts)
    let milliseconds = Int(now.tv_nsec / 1_000_000)
    // Years beyond 9999 keep their lowest four digits: gmtime gives at most that for any real clock.
    let fields: [(value: Int, width: Int, after: UInt8)] = [
        (Int(parts.tm_year) + 1900, 4, UInt8(ascii: "-")), (Int(parts.tm_mon) + 1, 2, UInt8(ascii: "-")),
        (Int(parts.tm_mday), 2, UInt8(ascii: "T")), (Int(parts.tm_hour), 2, UInt8(ascii: ":")),
        (Int(parts.tm_min), 2, UInt8(ascii: ":")), (Int(parts.tm_sec), 2, UInt8(ascii: ".")),
        (milliseconds, 3, UInt8(ascii: "Z")),
    ]
    return String(unsafeUninitializedCapacity: 24) { buffer in
        var position = 0
        for field in fields {
            var value = max(field.value, 0)
            var digit = field.width
            while digit > 0 {
                digit -= 1
                buffer[position + digit] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
            position += field.width
            buffer[position] = field.after
            position += 1
        }
        return position
    }
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
