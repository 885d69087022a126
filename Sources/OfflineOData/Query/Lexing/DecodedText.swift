#if canImport(Glibc)
import Glibc
#endif

/// One part of the URL (a path segment, an option value), percent-decoded, with a map from every
/// decoded byte back to its offset in the original text.
///
/// Parts are split on the raw delimiters (`/`, `?`, `&`, `=`) before decoding, so `%2F` inside a
/// key and `%26` inside a `$search` stay data. The lexer works on the decoded bytes; every offset
/// it reports goes through ``origin(_:)`` so errors point into what the user typed.
struct DecodedText {
    /// The decoded bytes are `storage[lower..<lower + count]`. When nothing was encoded (the
    /// common, fast case) `storage` is the caller's array, shared instead of copied.
    private let storage: [UInt8]
    private let lower: Int
    /// The number of decoded bytes.
    let count: Int
    /// Offset in the original of decoded byte 0 when nothing was encoded.
    private let base: Int
    /// When something was encoded: the original offset of each decoded byte, plus one for the end.
    private let origins: [Int]?

    /// Decodes `original[start..<end]`. A `%` not followed by two hex digits is a syntax error.
    /// `mayContainPercent: false` says the caller already knows there is no `%` (it scanned the
    /// whole URL once), which saves scanning the part again.
    init(_ original: [UInt8], from start: Int, to end: Int, mayContainPercent: Bool = true) throws(ODataError) {
        let lower = max(0, min(start, original.count))
        let upper = max(lower, min(end, original.count))
        base = lower
        var hasPercent = false
        if mayContainPercent {
            for index in lower..<upper where original[index] == UInt8(ascii: "%") {
                hasPercent = true
                break
            }
        }
        if !hasPercent {
            storage = original
            self.lower = lower
            count = upper - lower
            origins = nil
            return
        }
        var decoded: [UInt8] = []
        var map: [Int] = []
        decoded.reserveCapacity(upper - lower)
        map.reserveCapacity(upper - lower + 1)
        var index = lower
        while index < upper {
            let byte = original[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < upper,
                      let high = hexValue(original[index + 1]), let low = hexValue(original[index + 2]) else {
                    throw ODataError(.syntax, "'%' must be followed by two hexadecimal digits", offset: index)
                }
                decoded.append(high << 4 | low)
                map.append(index)
                index += 3
            } else {
                decoded.append(byte)
                map.append(index)
                index += 1
            }
        }
        map.append(upper)
        storage = decoded
        self.lower = 0
        count = decoded.count
        origins = map
    }

    /// Wraps bytes that need no decoding and start at `base` in the original.
    init(plain bytes: [UInt8], base: Int) {
        storage = bytes
        lower = 0
        count = bytes.count
        self.base = base
        origins = nil
    }

    /// The byte at `index`, or 0 outside the text (0 never occurs in a URL, so it reads as "stop").
    @inline(__always)
    func byte(_ index: Int) -> UInt8 {
        // One unsigned comparison covers both ends (a negative index is a huge unsigned one).
        UInt(bitPattern: index) < UInt(bitPattern: count) ? storage[lower &+ index] : 0
    }

    /// The byte at `index` when it lies before `limit`, else 0. A limit beyond ``count`` is
    /// clamped to it, so the lexer, which stops at its own end, tests one bound instead of two.
    @inline(__always)
    func byte(_ index: Int, before limit: Int) -> UInt8 {
        UInt(bitPattern: index) < UInt(bitPattern: min(limit, count)) ? storage[lower &+ index] : 0
    }

    /// The end of the run of identifier bytes (``ByteClass/isIdentifierPart(_:)``) from `start`,
    /// going no further than `limit`: the lexer's names, in one loop with its bound worked out once.
    func identifierEnd(from start: Int, before limit: Int) -> Int {
        guard start >= 0 else { return start }
        let to = min(limit, count)
        var index = start
        while index < to && ByteClass.isIdentifierPart(storage[lower &+ index]) { index += 1 }
        return index
    }

    /// The first index of `byte` in `start..<limit` (clamped to the text), or nil. memchr looks
    /// at many bytes at a time; the range it searches lies within `storage` by construction.
    func firstIndex(of byte: UInt8, from start: Int, before limit: Int) -> Int? {
        let from = max(0, start)
        let to = min(limit, count)
        guard from < to else { return nil }
        return storage.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress, let found = memchr(base + lower + from, Int32(byte), to - from) else { return nil }
            return UnsafeRawPointer(base + lower).distance(to: found)
        }
    }

    /// Decoded bytes `start..<end`, clamped to the text.
    func slice(_ start: Int, _ end: Int) -> ArraySlice<UInt8> {
        let from = max(0, min(start, count))
        let to = max(from, min(end, count))
        return storage[(lower + from)..<(lower + to)]
    }

    /// The original offset of decoded byte `index` (the end of the part for `index == count`).
    func origin(_ index: Int) -> Int {
        guard let origins else { return base + max(0, min(index, count)) }
        let clamped = max(0, min(index, origins.count - 1))
        return origins.isEmpty ? base : origins[clamped]
    }

    /// Whether decoded byte `index` was written as `%XX` (then it is data, never a delimiter).
    func wasEncoded(_ index: Int) -> Bool {
        guard origins != nil, index >= 0, index < count else { return false }
        return origin(index + 1) - origin(index) > 1
    }

    /// The original range covering decoded bytes `start..<end`.
    func range(_ start: Int, _ end: Int) -> SourceRange {
        let from = origin(start)
        return SourceRange(offset: from, length: max(0, origin(end) - from))
    }

    /// Decoded bytes `start..<end` as a string (invalid UTF-8 is repaired, never trapped on).
    func string(_ start: Int, _ end: Int) -> String {
        let from = max(0, min(start, count))
        let to = max(from, min(end, count))
        // Through the buffer, not an array slice: no retain and release of the storage per
        // string. `lower + from ... lower + to` lies within `storage` by construction.
        return storage.withUnsafeBufferPointer { buffer in
            String(decoding: UnsafeBufferPointer(rebasing: buffer[(lower + from)..<(lower + to)]), as: UTF8.self)
        }
    }

    /// A syntax error at decoded byte `index`.
    func error(_ message: String, at index: Int) -> ODataError {
        ODataError(.syntax, message, offset: origin(index))
    }
}
