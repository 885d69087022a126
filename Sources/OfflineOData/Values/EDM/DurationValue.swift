/// An `Edm.Duration` (and V2 `Edm.Time`, which V2 writes as a duration): a signed length of time.
///
/// OData durations use days, hours, minutes and seconds only (`P1DT2H30M15.5S`), so a duration is
/// exactly a number of seconds. The store keeps that number as decimal text with the `OOD_DECIMAL`
/// collation, so durations compare and sort by length.
package struct DurationValue: Sendable, Equatable {
    /// The length in seconds, exact (fractions down to the digits given).
    package var seconds: ExactDecimal

    package init(seconds: ExactDecimal) { self.seconds = seconds }

    /// Parses `[-]P[nD][T[nH][nM][n[.n]S]]`. Nil for years or months (not OData durations) and for
    /// anything else malformed. A leading `+` is not in 4.01's `durationValue` (URL literals and
    /// casts refuse it); payloads pass `allowingPlus`, since a service may write one (4.0 allowed it).
    package init?(iso text: String, allowingPlus: Bool = false) {
        var bytes = Array(text.utf8)[...]
        var negative = false
        if bytes.first == UInt8(ascii: "-") {
            negative = true
            bytes = bytes.dropFirst()
        } else if allowingPlus, bytes.first == UInt8(ascii: "+") {
            bytes = bytes.dropFirst()
        }
        guard bytes.first == UInt8(ascii: "P") else { return nil }
        bytes = bytes.dropFirst()
        var total = ExactDecimal.zero
        var inTime = false
        var sawComponent = false
        var lastUnitRank = 0
        while let first = bytes.first {
            if first == UInt8(ascii: "T") {
                guard !inTime else { return nil }
                inTime = true
                bytes = bytes.dropFirst()
                guard !bytes.isEmpty else { return nil }
                continue
            }
            let numberEnd = bytes.firstIndex { !($0 >= 48 && $0 <= 57) && $0 != UInt8(ascii: ".") } ?? bytes.endIndex
            guard numberEnd > bytes.startIndex, numberEnd < bytes.endIndex,
                  let amount = ExactDecimal(utf8: bytes[..<numberEnd])
            else { return nil }
            let unit = bytes[numberEnd]
            let isFraction = bytes[..<numberEnd].contains(UInt8(ascii: "."))
            let (rank, factor): (Int, Int64)
            switch (unit, inTime) {
            case (UInt8(ascii: "D"), false): (rank, factor) = (1, 86_400)
            case (UInt8(ascii: "H"), true): (rank, factor) = (2, 3600)
            case (UInt8(ascii: "M"), true): (rank, factor) = (3, 60)
            case (UInt8(ascii: "S"), true): (rank, factor) = (4, 1)
            default: return nil
            }
            // Units in order, each once; only seconds may have a fraction.
            guard rank > lastUnitRank, !isFraction || rank == 4 else { return nil }
            lastUnitRank = rank
            sawComponent = true
            total = total + amount * ExactDecimal(factor)
            bytes = bytes[(numberEnd + 1)...]
        }
        guard sawComponent else { return nil }
        seconds = negative ? -total : total
    }

    /// ISO 8601 with the largest units first: `P1DT2H30M15.5S`, `PT0S` for zero.
    package var isoText: String {
        guard !seconds.isZero else { return "PT0S" }
        let magnitude = seconds.isNegative ? -seconds : seconds
        let whole = magnitude.truncated()
        let fraction = magnitude - whole
        var remaining = Int64(whole.description) ?? 0
        let days = remaining / 86_400
        remaining %= 86_400
        let hours = remaining / 3600
        remaining %= 3600
        let minutes = remaining / 60
        remaining %= 60
        var text = seconds.isNegative ? "-P" : "P"
        if days > 0 { text += "\(days)D" }
        if hours > 0 || minutes > 0 || remaining > 0 || !fraction.isZero {
            text += "T"
            if hours > 0 { text += "\(hours)H" }
            if minutes > 0 { text += "\(minutes)M" }
            if remaining > 0 || !fraction.isZero {
                let secondsText = (ExactDecimal(remaining) + fraction).description
                text += "\(secondsText)S"
            }
        }
        return text
    }
}
