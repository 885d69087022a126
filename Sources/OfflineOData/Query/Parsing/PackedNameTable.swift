/// A fixed set of names (the raw values of an enum) looked up in decoded URL bytes without
/// building a string: the names are grouped by length, each with its first sixteen bytes packed
/// into two integers, so a lookup compares a few integers and reads the bytes past the sixteenth
/// only for a long candidate that matches so far. The parser looks a function name up at every call.
struct PackedNameTable<Value: RawRepresentable & Sendable>: Sendable where Value.RawValue == String {
    /// The names sorted by length with bytes 0-7 and 8-15 packed; plain values, so walking them
    /// retains nothing.
    private let entries: [(value: Value, head: UInt64, next: UInt64)]
    /// `entries[starts[n]..<starts[n + 1]]` are the names `n` bytes long.
    private let starts: [Int]
    /// Whether names match ignoring ASCII case (the names are then given in lowercase).
    private let ignoringCase: Bool

    init(_ values: [Value], ignoringCase: Bool) {
        let sorted = values.sorted { $0.rawValue.utf8.count < $1.rawValue.utf8.count }
        entries = sorted.map { value in
            let bytes = Array(value.rawValue.utf8)
            return (value, Self.pack(bytes.prefix(8)), Self.pack(bytes.dropFirst(8).prefix(8)))
        }
        let longest = sorted.last?.rawValue.utf8.count ?? 0
        var starts: [Int] = []
        var index = 0
        for length in 0...(longest + 1) {
            while index < sorted.count && sorted[index].rawValue.utf8.count < length { index += 1 }
            starts.append(index)
        }
        self.starts = starts
        self.ignoringCase = ignoringCase
    }

    /// The value named by bytes `start..<end`, or nil.
    func value(_ text: DecodedText, _ start: Int, _ end: Int) -> Value? {
        let length = end - start
        guard length >= 0, length + 1 < starts.count else { return nil }
        let head = pack(text, start, min(end, start + 8))
        let next = length > 8 ? pack(text, start + 8, min(end, start + 16)) : 0
        for index in starts[length]..<starts[length + 1] where entries[index].head == head && entries[index].next == next {
            let value = entries[index].value
            if length <= 16 || tailMatches(text, start, end, value.rawValue) { return value }
        }
        return nil
    }

    /// Bytes of a name packed as ``pack(_:_:_:)`` packs text.
    private static func pack(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var packed: UInt64 = 0
        for byte in bytes { packed = packed << 8 | UInt64(byte) }
        return packed
    }

    /// Bytes `start..<end` (eight at most) packed, lowercased when ignoring case.
    @inline(__always)
    private func pack(_ text: DecodedText, _ start: Int, _ end: Int) -> UInt64 {
        var packed: UInt64 = 0
        var index = start
        if ignoringCase {
            while index < end {
                packed = packed << 8 | UInt64(ByteClass.lower(text.byte(index)))
                index += 1
            }
        } else {
            while index < end {
                packed = packed << 8 | UInt64(text.byte(index))
                index += 1
            }
        }
        return packed
    }

    /// Whether bytes past the first sixteen of `start..<end` spell the rest of `name`; the caller
    /// compared the length and the first sixteen already.
    private func tailMatches(_ text: DecodedText, _ start: Int, _ end: Int, _ name: String) -> Bool {
        var index = start + 16
        for expected in name.utf8.dropFirst(16) {
            guard index < end else { return false }
            let byte = text.byte(index)
            if (ignoringCase ? ByteClass.lower(byte) : byte) != expected { return false }
            index += 1
        }
        return index == end
    }
}
