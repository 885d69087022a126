/// Converts a literal to the stored form of an EDM primitive type, following the literal rules of
/// URL Conventions §5.1.1 (an integer literal may denote any numeric type it fits, a decimal
/// literal Decimal, Single or Double, ...). Nil when the literal cannot denote that type.
enum LiteralCoercion {
    static func value(_ literal: LiteralSyntax, as type: PrimitiveType) -> BoundValue? {
        switch literal.kind {
        case .null:
            return nil
        case .boolean(let flag):
            return type == .boolean ? .integer(flag ? 1 : 0) : nil
        case .integer(let number), .int64(let number):
            if case .int64 = literal.kind, integerRange(type) != nil, type != .int64 { return nil }
            if let range = integerRange(type) { return range.contains(number) ? .integer(number) : nil }
            switch type {
            case .decimal: return .text(ExactDecimal(number).description)
            case .double, .single: return .real(Double(number))
            default: return nil
            }
        case .decimal(let text):
            switch type {
            case .decimal: return isCanonicalDecimal(text) ? .text(text) : ExactDecimal(text).map { .text($0.description) }
            case .double, .single: return Double(text).map { .real($0) }
            default: return nil
            }
        case .double(let number), .single(let number):
            switch type {
            case .double, .single: return .real(number)
            case .decimal:
                guard number.isFinite, case .double = literal.kind else { return nil }
                return ExactDecimal(literal.text.filter { $0 != "d" && $0 != "D" }).map { .text($0.description) }
            default: return nil
            }
        case .string(let text):
            switch type {
            case .string: return .text(text)
            case .duration: return DurationValue(iso: text).map { .text($0.seconds.description) }
            default: return nil
            }
        case .date(let text):
            guard type == .date, let value = TemporalValue(iso: text) else { return nil }
            return .text(value.dateText)
        case .dateTimeOffset(let text), .dateTime(let text):
            guard type == .dateTimeOffset || type == .dateTime, let value = TemporalValue(iso: text) else { return nil }
            return .text(value.canonicalText)
        case .timeOfDay(let text):
            guard type == .timeOfDay || type == .time, let value = TemporalValue(timeOfDay: text) else { return nil }
            return .text(value.canonicalTimeOfDayText)
        case .duration(let text):
            guard let value = DurationValue(iso: text) else { return nil }
            if type == .duration { return .text(value.seconds.description) }
            if type == .time { return timeOfDayText(seconds: value.seconds).map { .text($0) } }
            return nil
        case .guid(let text):
            return type == .guid ? .text(text.lowercased()) : nil
        case .binary(let bytes):
            return type == .binary ? .bytes(bytes) : nil
        case .enumeration:
            return nil
        }
    }

    /// Whether decimal text is already what ``ExactDecimal/description`` would make of it
    /// (`-?(0|[1-9][0-9]*)(.[0-9]*[1-9])?`, not `-0`), so the common literal needs no round trip.
    static func isCanonicalDecimal(_ text: String) -> Bool {
        var bytes = text.utf8.makeIterator()
        var byte = bytes.next()
        let negative = byte == UInt8(ascii: "-")
        if negative { byte = bytes.next() }
        guard let first = byte, ByteClass.isDigit(first) else { return false }
        byte = bytes.next()
        if first == UInt8(ascii: "0") {
            if byte == nil { return !negative }
        } else {
            while let digit = byte, ByteClass.isDigit(digit) { byte = bytes.next() }
            if byte == nil { return true }
        }
        guard byte == UInt8(ascii: ".") else { return false }
        var last: UInt8?
        while let digit = bytes.next() {
            guard ByteClass.isDigit(digit) else { return false }
            last = digit
        }
        guard let last else { return false }
        return last != UInt8(ascii: "0")
    }

    static func integerRange(_ type: PrimitiveType) -> ClosedRange<Int64>? {
        PrimitiveCast.Form(type)?.integerRange
    }

    /// The natural type of a literal when nothing constrains it.
    static func naturalType(_ literal: LiteralSyntax) -> PrimitiveType? {
        switch literal.kind {
        case .null, .enumeration: nil
        case .integer(let number): (Int64(Int32.min)...Int64(Int32.max)).contains(number) ? .int32 : .int64
        case .int64: .int64
        case .boolean: .boolean
        case .decimal: .decimal
        case .double: .double
        case .single: .single
        case .string: .string
        case .date: .date
        case .dateTimeOffset: .dateTimeOffset
        case .dateTime: .dateTime
        case .timeOfDay: .timeOfDay
        case .duration: .duration
        case .guid: .guid
        case .binary: .binary
        }
    }

    /// V2 `time'PT13H'` against an `Edm.Time` property, stored as a time of day.
    private static func timeOfDayText(seconds: ExactDecimal) -> String? {
        let text = seconds.description
        let parts = text.split(separator: ".", maxSplits: 1)
        guard let first = parts.first, let whole = Int(first), whole >= 0, whole < 86_400 else { return nil }
        var fraction = parts.count > 1 ? String(parts[1]) : ""
        if fraction.count > 7 { fraction = String(fraction.prefix(7)) }
        let ticks = Int(fraction + String(repeating: "0", count: 7 - fraction.count)) ?? 0
        let value = TemporalValue(year: 1970, month: 1, day: 1, hour: whole / 3600, minute: (whole / 60) % 60,
                                  second: whole % 60, ticks: ticks)
        return value.canonicalTimeOfDayText
    }
}
