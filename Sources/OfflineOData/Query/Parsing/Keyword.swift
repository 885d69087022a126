/// Keyword matching without building strings: up to eight ASCII bytes, lowercased, packed into
/// a UInt64. The parser meets a keyword candidate at every name token, so this is on the hot path.
enum Keyword {
    /// The packed form of a lowercase keyword (8 bytes at most).
    static func pack(_ word: StaticString) -> UInt64 {
        var packed: UInt64 = 0
        let pointer = word.utf8Start
        for offset in 0..<min(word.utf8CodeUnitCount, 8) {
            packed = packed << 8 | UInt64(pointer[offset])
        }
        return packed
    }

    /// The packed lowercase bytes `start..<end`, or 0 when longer than eight bytes.
    @inline(__always)
    static func packLowercased(_ text: DecodedText, _ start: Int, _ end: Int) -> UInt64 {
        guard end - start <= 8, end > start else { return 0 }
        var packed: UInt64 = 0
        for index in start..<end { packed = packed << 8 | UInt64(ByteClass.lower(text.byte(index))) }
        return packed
    }

    /// Whether a name token could be `null`, `true`, `false`, `INF` or `NaN`.
    @inline(__always)
    static func mayBeLiteralName(_ text: DecodedText, _ start: Int, _ end: Int) -> Bool {
        let length = end - start
        guard length >= 3 && length <= 5 else { return false }
        switch ByteClass.lower(text.byte(start)) {
        case UInt8(ascii: "n"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "i"): return true
        default: return false
        }
    }

    /// The binary operator a packed lowercase name denotes (a switch on constants: no hashing).
    static func binaryOperator(_ packed: UInt64) -> BinaryOperator? {
        switch packed {
        case 0x6f72: .or // "or"
        case 0x616e64: .and // "and"
        case 0x6571: .eq // "eq"
        case 0x6e65: .ne // "ne"
        case 0x6774: .gt // "gt"
        case 0x6765: .ge // "ge"
        case 0x6c74: .lt // "lt"
        case 0x6c65: .le // "le"
        case 0x616464: .add // "add"
        case 0x737562: .sub // "sub"
        case 0x6d756c: .mul // "mul"
        case 0x646976: .div // "div"
        case 0x6469766279: .divby // "divby"
        case 0x6d6f64: .mod // "mod"
        case 0x686173: .has // "has"
        case 0x696e: .`in` // "in"
        default: nil
        }
    }

    /// The system query options by name length and first eight bytes packed (plain values, so
    /// the scan retains nothing), for ``systemOption(_:_:_:)``.
    private static let systemOptionNames: [(option: SystemQueryOption, length: Int, head: UInt64)] =
        SystemQueryOption.allCases.map { ($0, $0.rawValue.utf8.count, head($0.rawValue)) }

    /// The canonical functions the same way, for ``canonicalFunction(_:_:_:)``.
    private static let functionNames: [(function: CanonicalFunction, length: Int, head: UInt64)] =
        CanonicalFunction.allCases.map { ($0, $0.rawValue.utf8.count, head($0.rawValue)) }

    /// The system query option named by bytes `start..<end` (without `$`), ignoring ASCII case.
    static func systemOption(_ text: DecodedText, _ start: Int, _ end: Int) -> SystemQueryOption? {
        let length = end - start
        let packed = head(text, start, end, ignoringCase: true)
        for entry in systemOptionNames where entry.length == length && entry.head == packed
            && tailMatches(text, start, end, entry.option.rawValue, ignoringCase: true) {
            return entry.option
        }
        return nil
    }

    /// The canonical function named exactly by bytes `start..<end`.
    static func canonicalFunction(_ text: DecodedText, _ start: Int, _ end: Int) -> CanonicalFunction? {
        let length = end - start
        let packed = head(text, start, end, ignoringCase: false)
        for entry in functionNames where entry.length == length && entry.head == packed
            && tailMatches(text, start, end, entry.function.rawValue, ignoringCase: false) {
            return entry.function
        }
        return nil
    }

    /// The first eight bytes of a (lowercase, for the options) name, packed as ``head(_:_:_:ignoringCase:)`` packs text.
    private static func head(_ word: String) -> UInt64 {
        var packed: UInt64 = 0
        for byte in word.utf8.prefix(8) { packed = packed << 8 | UInt64(byte) }
        return packed
    }

    /// Bytes `start..<min(end, start + 8)` packed, lowercased when ignoring case.
    @inline(__always)
    private static func head(_ text: DecodedText, _ start: Int, _ end: Int, ignoringCase: Bool) -> UInt64 {
        var packed: UInt64 = 0
        var index = start
        while index < end && index < start + 8 {
            let byte = text.byte(index)
            packed = packed << 8 | UInt64(ignoringCase ? ByteClass.lower(byte) : byte)
            index += 1
        }
        return packed
    }

    /// Whether bytes past the first eight of `start..<end` spell the rest of `word` (`word` in
    /// lowercase when ignoring case); the caller compared the length and the first eight already.
    private static func tailMatches(_ text: DecodedText, _ start: Int, _ end: Int, _ word: String, ignoringCase: Bool) -> Bool {
        guard end - start > 8 else { return true }
        var index = start + 8
        for expected in word.utf8.dropFirst(8) {
            guard index < end else { return false }
            let byte = text.byte(index)
            if (ignoringCase ? ByteClass.lower(byte) : byte) != expected { return false }
            index += 1
        }
        return index == end
    }
}
