/// An `Edm.Decimal` value, exact: a sign, decimal digits and a scale, with no binary rounding.
///
/// Services send decimals as JSON strings (V2) or numbers (V4) with more digits than a `Double`
/// holds (`Decimal(31,14)` is common in SAP services). The store keeps their text, compares them
/// numerically (``compareDecimalText(_:_:)``, the `OOD_DECIMAL` collation) and evaluates `$filter`
/// arithmetic on them with this type. Division keeps ``divisionDigits`` significant digits.
package struct ExactDecimal: Sendable, Equatable, Comparable, CustomStringConvertible {
    /// True for values below zero (never for zero).
    package private(set) var isNegative: Bool
    /// The digits, most significant first, without leading zeros (empty for zero).
    private var digits: [UInt8]
    /// How many of `digits` are after the decimal point (trailing zeros removed).
    private var scale: Int

    /// Significant digits kept by division: 34, as IEEE 754 decimal128 and OData's default precision.
    package static let divisionDigits = 34

    package static let zero = ExactDecimal(isNegative: false, digits: [], scale: 0)

    /// The most digits a value written out may have (before and after the point together): text
    /// with more is no decimal this engine takes, so no value costs more than this to store or
    /// to compute with (the arithmetic is quadratic in the digits).
    package static let longestDigits = 1_000

    /// Digits before the point, written out (`1e3` has 4); 0 for a value below one.
    package var integerDigits: Int { max(digits.count - scale, 0) }
    /// Digits after the point (trailing zeros not counted).
    package var fractionDigits: Int { max(scale, 0) }

    private init(isNegative: Bool, digits: [UInt8], scale: Int) {
        self.isNegative = isNegative
        self.digits = digits
        self.scale = scale
        normalize()
    }

    package init(_ value: Int64) {
        var magnitude = value.magnitude
        var reversed: [UInt8] = []
        while magnitude > 0 {
            reversed.append(UInt8(magnitude % 10))
            magnitude /= 10
        }
        self.init(isNegative: value < 0, digits: reversed.reversed(), scale: 0)
    }

    /// Parses decimal text: an optional sign, digits with an optional point, an optional exponent
    /// (`-12.50`, `.5`, `1e-3`). Nil for anything else, or an exponent beyond ±10,000.
    package init?(_ text: String) {
        self.init(utf8: text.utf8)
    }

    /// Parses decimal text given as UTF-8 bytes; see ``init(_:)``.
    package init?<Bytes: Collection<UInt8>>(utf8 bytes: Bytes) {
        var negative = false
        var digits: [UInt8] = []
        var scale = 0
        var sawDigit = false
        var sawPoint = false
        var exponent = 0
        var index = bytes.startIndex
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index = bytes.index(after: index)
        }
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte >= 48 && byte <= 57 {
                sawDigit = true
                if sawPoint { scale += 1 }
                // Leading zeros are not kept; after the point they still count in the scale.
                if !(digits.isEmpty && byte == 48) { digits.append(byte - 48) }
                guard digits.count <= Self.longestDigits, scale <= Self.longestDigits else { return nil }
            } else if byte == UInt8(ascii: "."), !sawPoint {
                sawPoint = true
            } else if (byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")), sawDigit {
                guard let parsed = Self.parseExponent(bytes[bytes.index(after: index)...]) else { return nil }
                exponent = parsed
                break
            } else {
                return nil
            }
            index = bytes.index(after: index)
        }
        guard sawDigit else { return nil }
        self.init(isNegative: negative, digits: digits, scale: scale - exponent)
        guard integerDigits + fractionDigits <= Self.longestDigits else { return nil }
    }

    private static func parseExponent<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Int? {
        var negative = false
        var value = 0
        var sawDigit = false
        var index = bytes.startIndex
        if index < bytes.endIndex, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") {
            negative = bytes[index] == UInt8(ascii: "-")
            index = bytes.index(after: index)
        }
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte >= 48 && byte <= 57 else { return nil }
            sawDigit = true
            value = value * 10 + Int(byte - 48)
            guard value <= 10_000 else { return nil }
            index = bytes.index(after: index)
        }
        return sawDigit ? (negative ? -value : value) : nil
    }

    /// Removes leading zeros of the integer part and trailing zeros of the fraction.
    private mutating func normalize() {
        if let first = digits.firstIndex(where: { $0 != 0 }) {
            if first > 0 { digits.removeFirst(first) }
        } else {
            digits = []
        }
        while scale > 0, let last = digits.last, last == 0 {
            digits.removeLast()
            scale -= 1
        }
        if digits.isEmpty {
            scale = 0
            isNegative = false
        }
        // A negative scale (from an exponent) becomes trailing zeros of the integer.
        if scale < 0 {
            digits.append(contentsOf: repeatElement(0, count: -scale))
            scale = 0
        }
    }

    package var isZero: Bool { digits.isEmpty }

    /// Plain notation, no exponent: `-1234.5`, `0.001`, `0`.
    package var description: String {
        if digits.isEmpty { return "0" }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count + 3 + max(0, scale - digits.count))
        if isNegative { bytes.append(UInt8(ascii: "-")) }
        let integerCount = digits.count - scale
        if integerCount <= 0 {
            bytes.append(UInt8(ascii: "0"))
            bytes.append(UInt8(ascii: "."))
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -integerCount))
            for digit in digits { bytes.append(digit + 48) }
        } else {
            for digit in digits[..<integerCount] { bytes.append(digit + 48) }
            if scale > 0 {
                bytes.append(UInt8(ascii: "."))
                for digit in digits[integerCount...] { bytes.append(digit + 48) }
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The nearest `Double`, for comparisons with `Edm.Double` values.
    package var doubleValue: Double { Double(description) ?? .nan }

    // MARK: - Comparison

    package static func < (lhs: ExactDecimal, rhs: ExactDecimal) -> Bool { compare(lhs, rhs) < 0 }

    /// -1, 0 or 1.
    package static func compare(_ lhs: ExactDecimal, _ rhs: ExactDecimal) -> Int {
        if lhs.isNegative != rhs.isNegative { return lhs.isNegative ? -1 : 1 }
        let magnitude = compareMagnitude(lhs, rhs)
        return lhs.isNegative ? -magnitude : magnitude
    }

    private static func compareMagnitude(_ lhs: ExactDecimal, _ rhs: ExactDecimal) -> Int {
        let lhsInteger = lhs.digits.count - lhs.scale
        let rhsInteger = rhs.digits.count - rhs.scale
        if lhs.digits.isEmpty || rhs.digits.isEmpty {
            return lhs.digits.isEmpty ? (rhs.digits.isEmpty ? 0 : -1) : 1
        }
        if lhsInteger != rhsInteger { return lhsInteger < rhsInteger ? -1 : 1 }
        let count = max(lhs.digits.count, rhs.digits.count)
        for index in 0..<count {
            let a = index < lhs.digits.count ? lhs.digits[index] : 0
            let b = index < rhs.digits.count ? rhs.digits[index] : 0
            if a != b { return a < b ? -1 : 1 }
        }
        return 0
    }

    // MARK: - Arithmetic

    package static prefix func - (value: ExactDecimal) -> ExactDecimal {
        var result = value
        if !result.digits.isEmpty { result.isNegative.toggle() }
        return result
    }

    package static func + (lhs: ExactDecimal, rhs: ExactDecimal) -> ExactDecimal {
        let scale = max(lhs.scale, rhs.scale)
        let a = lhs.digitsScaled(to: scale)
        let b = rhs.digitsScaled(to: scale)
        if lhs.isNegative == rhs.isNegative {
            return ExactDecimal(isNegative: lhs.isNegative, digits: addDigits(a, b), scale: scale)
        }
        // Opposite signs: subtract the smaller magnitude from the larger.
        if compareDigits(a, b) >= 0 {
            return ExactDecimal(isNegative: lhs.isNegative, digits: subtractDigits(a, b), scale: scale)
        }
        return ExactDecimal(isNegative: rhs.isNegative, digits: subtractDigits(b, a), scale: scale)
    }

    package static func - (lhs: ExactDecimal, rhs: ExactDecimal) -> ExactDecimal { lhs + (-rhs) }

    package static func * (lhs: ExactDecimal, rhs: ExactDecimal) -> ExactDecimal {
        if lhs.digits.isEmpty || rhs.digits.isEmpty { return .zero }
        var product = [Int](repeating: 0, count: lhs.digits.count + rhs.digits.count)
        for (i, a) in lhs.digits.enumerated().reversed() {
            for (j, b) in rhs.digits.enumerated().reversed() {
                product[i + j + 1] += Int(a) * Int(b)
            }
        }
        for index in stride(from: product.count - 1, to: 0, by: -1) {
            product[index - 1] += product[index] / 10
            product[index] %= 10
        }
        return ExactDecimal(isNegative: lhs.isNegative != rhs.isNegative,
                            digits: product.map { UInt8($0) }, scale: lhs.scale + rhs.scale)
    }

    /// `lhs / rhs` to ``divisionDigits`` significant digits (truncated); nil when `rhs` is zero.
    package static func divide(_ lhs: ExactDecimal, by rhs: ExactDecimal) -> ExactDecimal? {
        if rhs.digits.isEmpty { return nil }
        if lhs.digits.isEmpty { return .zero }
        // Long division of the integers lhs.digits / rhs.digits, with extra zeros for precision.
        let extra = divisionDigits + rhs.digits.count
        var remainder: [UInt8] = []
        var quotient: [UInt8] = []
        let dividend = lhs.digits + [UInt8](repeating: 0, count: extra)
        for digit in dividend {
            remainder.append(digit)
            if let first = remainder.firstIndex(where: { $0 != 0 }) { remainder.removeFirst(first) } else { remainder = [] }
            var count: UInt8 = 0
            while compareDigits(remainder, rhs.digits) >= 0 {
                remainder = subtractDigits(remainder, rhs.digits)
                count += 1
            }
            quotient.append(count)
        }
        var result = ExactDecimal(isNegative: lhs.isNegative != rhs.isNegative, digits: quotient,
                                  scale: lhs.scale - rhs.scale + extra)
        result.truncate(toSignificantDigits: divisionDigits)
        return result
    }

    /// Drops digits after the first `count` significant ones (towards zero).
    private mutating func truncate(toSignificantDigits count: Int) {
        guard digits.count > count else { return }
        let drop = min(digits.count - count, scale)
        guard drop > 0 else { return }
        digits.removeLast(drop)
        scale -= drop
        normalize()
    }

    /// Rounded to an integer: half away from zero (OData `round`).
    package func rounded() -> ExactDecimal {
        guard scale > 0 else { return self }
        let integerCount = digits.count - scale
        let firstDropped = integerCount >= 0 && integerCount < digits.count ? digits[integerCount] : 0
        var result = truncated()
        if firstDropped >= 5 && integerCount >= 0 {
            result = result + (isNegative ? ExactDecimal(-1) : ExactDecimal(1))
        }
        return result
    }

    /// The integer part (towards zero).
    package func truncated() -> ExactDecimal {
        guard scale > 0 else { return self }
        let integerCount = digits.count - scale
        guard integerCount > 0 else { return .zero }
        return ExactDecimal(isNegative: isNegative, digits: Array(digits[..<integerCount]), scale: 0)
    }

    /// The greatest integer not above the value (OData `floor`).
    package func floor() -> ExactDecimal {
        let integer = truncated()
        return isNegative && integer != self ? integer - ExactDecimal(1) : integer
    }

    /// The least integer not below the value (OData `ceiling`).
    package func ceiling() -> ExactDecimal {
        let integer = truncated()
        return !isNegative && integer != self ? integer + ExactDecimal(1) : integer
    }

    private func digitsScaled(to newScale: Int) -> [UInt8] {
        digits + [UInt8](repeating: 0, count: newScale - scale)
    }

    private static func compareDigits(_ a: [UInt8], _ b: [UInt8]) -> Int {
        let trimmedA = a.drop { $0 == 0 }
        let trimmedB = b.drop { $0 == 0 }
        if trimmedA.count != trimmedB.count { return trimmedA.count < trimmedB.count ? -1 : 1 }
        for (x, y) in zip(trimmedA, trimmedB) where x != y { return x < y ? -1 : 1 }
        return 0
    }

    private static func addDigits(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(max(a.count, b.count) + 1)
        var i = a.count - 1
        var j = b.count - 1
        var carry: UInt8 = 0
        while i >= 0 || j >= 0 || carry > 0 {
            let sum = (i >= 0 ? a[i] : 0) + (j >= 0 ? b[j] : 0) + carry
            result.append(sum % 10)
            carry = sum / 10
            i -= 1
            j -= 1
        }
        return result.reversed()
    }

    /// `a - b` for `a >= b` (as integers).
    private static func subtractDigits(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(a.count)
        var i = a.count - 1
        var j = b.count - 1
        var borrow: Int = 0
        while i >= 0 {
            var difference = Int(a[i]) - borrow - (j >= 0 ? Int(b[j]) : 0)
            borrow = 0
            if difference < 0 {
                difference += 10
                borrow = 1
            }
            result.append(UInt8(difference))
            i -= 1
            j -= 1
        }
        return result.reversed()
    }
}
