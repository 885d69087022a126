/// Guesses a page's next link from the bytes near its ends, without reading its entities, so the
/// next page can be fetched while this one is stored (``PageFetcher``).
///
/// Services write the link as the last member of the page (V4 after `value`, V2 at the end of
/// `d`) or before the entities; so the scan looks for the last `"@odata.nextLink"` (or its 4.0
/// spellings, or V2's `"__next"`) in the page's last few kilobytes, then in its first. Inside a
/// JSON string such a name would have escaped quotes, so it is found only as a member name; a
/// nested navigation's own next link can still be taken for the page's. That is why it stays a
/// guess: the download compares it with the link the page reader found and, when they differ,
/// fetches the right page and drops the guessed one.
enum NextLinkScanner {
    /// How far from each end of the page the scan looks.
    static let window = 4096

    private static let names: [[UInt8]] = ["@odata.nextLink", "odata.nextLink", "@nextLink", "__next"].map { Array("\"\($0)\"".utf8) }

    /// The next link guessed for a JSON page, or nil when none is near its ends.
    static func nextLink(in page: [UInt8]) -> String? {
        page.withUnsafeBufferPointer { nextLink(in: $0) }
    }

    /// The next link guessed for the JSON page in `bytes`, or nil when none is near its ends.
    static func nextLink(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let count = bytes.count
        let tail = max(0, count - window)
        if let link = lastLink(in: bytes, from: tail, to: count) { return link }
        return tail > 0 ? lastLink(in: bytes, from: 0, to: min(window, tail)) : nil
    }

    /// The value of the last next-link member whose name starts in `start..<end`.
    private static func lastLink(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> String? {
        var index = end - 1
        while index >= start {
            if bytes[index] == UInt8(ascii: "\""), let link = link(in: bytes, nameAt: index) { return link }
            index -= 1
        }
        return nil
    }

    /// The link when a next-link member name starts at `position`: `"name" : "value"`.
    private static func link(in bytes: UnsafeBufferPointer<UInt8>, nameAt position: Int) -> String? {
        guard let name = names.first(where: { matches($0, bytes, at: position) }) else { return nil }
        var index = skipSpace(bytes, from: position + name.count)
        guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
        index = skipSpace(bytes, from: index + 1)
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        let valueStart = index + 1
        var hasEscapes = false
        index = valueStart
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            if bytes[index] == UInt8(ascii: "\\") {
                hasEscapes = true
                index += 1
            } else if bytes[index] < 0x20 {
                return nil
            }
            index += 1
        }
        guard index < bytes.count else { return nil }
        let body = UnsafeBufferPointer(rebasing: bytes[valueStart..<index])
        return hasEscapes ? unescaped(body) : String(decoding: body, as: UTF8.self)
    }

    /// The link with `\/`, `\"` and `\\` unescaped (V2 services escape slashes); nil for any
    /// other escape, which the page reader then reads properly.
    private static func unescaped(_ body: UnsafeBufferPointer<UInt8>) -> String? {
        var result: [UInt8] = []
        result.reserveCapacity(body.count)
        var index = 0
        while index < body.count {
            var byte = body[index]
            if byte == UInt8(ascii: "\\") {
                guard index + 1 < body.count else { return nil }
                byte = body[index + 1]
                guard byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            result.append(byte)
            index += 1
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func matches(_ name: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>, at position: Int) -> Bool {
        guard position + name.count <= bytes.count else { return false }
        for (offset, byte) in name.enumerated() where bytes[position + offset] != byte { return false }
        return true
    }

    private static func skipSpace(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var index = start
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index
    }
}
