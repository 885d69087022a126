/// Compares two decimals given as UTF-8 text, numerically, without allocating.
///
/// This is the comparison behind the `OOD_DECIMAL` collation of `Edm.Decimal` columns, so it runs
/// once per comparison while SQLite sorts or searches an index: the store writes decimals in plain
/// notation (``ExactDecimal/description``), which is compared here digit by digit. Text in any other
/// form (an exponent, garbage) falls back to ``ExactDecimal`` parsing; text that is no number at
/// all sorts after every number, by its bytes.
package func compareDecimalText(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int {
    guard let a = PlainDecimal(lhs), let b = PlainDecimal(rhs) else {
        return compareDecimalFallback(lhs, rhs)
    }
    if a.isNegative != b.isNegative { return a.isNegative ? -1 : 1 }
    let magnitude = PlainDecimal.compareMagnitude(a, b, lhs, rhs)
    return a.isNegative ? -magnitude : magnitude
}

/// The parts of a decimal in plain notation, as ranges into its text.
private struct PlainDecimal {
    var isNegative: Bool
    /// Significant integer digits (leading zeros skipped).
    var integer: Range<Int>
    /// Fraction digits (trailing zeros skipped).
    var fraction: Range<Int>

    init?(_ text: UnsafeRawBufferPointer) {
        var index = 0
        var negative = false
        if index < text.count, text[index] == UInt8(ascii: "-") || text[index] == UInt8(ascii: "+") {
            negative = text[index] == UInt8(ascii: "-")
            index += 1
        }
        let integerStart = index
        while index < text.count, text[index] >= 48, text[index] <= 57 { index += 1 }
        var integerEnd = index
        var fractionStart = index
        var fractionEnd = index
        if index < text.count, text[index] == UInt8(ascii: ".") {
            index += 1
            fractionStart = index
            while index < text.count, text[index] >= 48, text[index] <= 57 { index += 1 }
            fractionEnd = index
        }
        guard index == text.count, integerEnd > integerStart || fractionEnd > fractionStart else { return nil }
        var significantStart = integerStart
        while significantStart < integerEnd, text[significantStart] == 48 { significantStart += 1 }
        while fractionEnd > fractionStart, text[fractionEnd - 1] == 48 { fractionEnd -= 1 }
        if significantStart == integerEnd { integerEnd = significantStart }
        isNegative = negative && (significantStart < integerEnd || fractionEnd > fractionStart)
        integer = significantStart..<integerEnd
        fraction = fractionStart..<fractionEnd
    }

    static func compareMagnitude(_ a: PlainDecimal, _ b: PlainDecimal,
                                 _ aText: UnsafeRawBufferPointer, _ bText: UnsafeRawBufferPointer) -> Int {
        if a.integer.count != b.integer.count { return a.integer.count < b.integer.count ? -1 : 1 }
        for offset in 0..<a.integer.count {
            let x = aText[a.integer.lowerBound + offset], y = bText[b.integer.lowerBound + offset]
            if x != y { return x < y ? -1 : 1 }
        }
        let length = max(a.fraction.count, b.fraction.count)
        for offset in 0..<length {
            let x = offset < a.fraction.count ? aText[a.fraction.lowerBound + offset] : 48
            let y = offset < b.fraction.count ? bText[b.fraction.lowerBound + offset] : 48
            if x != y { return x < y ? -1 : 1 }
        }
        return 0
    }
}

private func compareDecimalFallback(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int {
    // `divby` zero gives -INF, INF or NaN: -INF below every number, INF above, NaN above INF (as
    // SQLite sorts a Double's stored 'NaN' text after every number).
    let lhsRank = specialDecimalRank(lhs), rhsRank = specialDecimalRank(rhs)
    if lhsRank != 0 || rhsRank != 0 {
        if lhsRank != rhsRank || lhsRank == 3 { return lhsRank < rhsRank ? -1 : lhsRank > rhsRank ? 1 : compareBytes(lhs, rhs) }
        return 0
    }
    switch (ExactDecimal(utf8: lhs), ExactDecimal(utf8: rhs)) {
    case let (a?, b?): return ExactDecimal.compare(a, b)
    case (.some, nil): return -1
    case (nil, .some): return 1
    case (nil, nil):
        for (x, y) in zip(lhs, rhs) where x != y { return x < y ? -1 : 1 }
        return lhs.count == rhs.count ? 0 : (lhs.count < rhs.count ? -1 : 1)
    }
}

/// Where a decimal text sorts among the special values: -1 for `-INF`, 0 for a number, 1 for
/// `INF`, 2 for `NaN`, 3 for other text.
private func specialDecimalRank(_ text: UnsafeRawBufferPointer) -> Int {
    if text.elementsEqual("-INF".utf8) { return -1 }
    if text.elementsEqual("INF".utf8) { return 1 }
    if text.elementsEqual("NaN".utf8) { return 2 }
    return ExactDecimal(utf8: text) == nil ? 3 : 0
}

private func compareBytes(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Int {
    for (x, y) in zip(lhs, rhs) where x != y { return x < y ? -1 : 1 }
    return lhs.count == rhs.count ? 0 : (lhs.count < rhs.count ? -1 : 1)
}
