/// Keyword matching without building strings: up to eight ASCII bytes, lowercased, packed into
/// a UInt64. The parser meets a keyword candidate at every name token, so this is on the hot path.
enum Keyword {
    /// The packed form of a lowercase keyword (8 bytes at most); inlined, so a constant folds.
    @inline(__always)
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

    /// The system query options by name (lowercase; matched ignoring case).
    private static let systemOptionNames = PackedNameTable(SystemQueryOption.allCases, ignoringCase: true)

    /// The canonical functions by name (matched exactly).
    private static let functionNames = PackedNameTable(CanonicalFunction.allCases, ignoringCase: false)

    /// The system query option named by bytes `start..<end` (without `$`), ignoring ASCII case.
    static func systemOption(_ text: DecodedText, _ start: Int, _ end: Int) -> SystemQueryOption? {
        systemOptionNames.value(text, start, end)
    }

    /// The canonical function named exactly by bytes `start..<end`.
    static func canonicalFunction(_ text: DecodedText, _ start: Int, _ end: Int) -> CanonicalFunction? {
        functionNames.value(text, start, end)
    }
}
