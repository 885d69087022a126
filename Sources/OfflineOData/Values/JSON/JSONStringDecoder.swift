/// Decodes the body of a JSON string that ``JSONStringScanner`` has already validated.
///
/// Because the scanner rejected every malformed escape, lone surrogate and invalid UTF-8 sequence,
/// decoding cannot fail. It still never reads outside the body: a body that was not validated
/// (a token misused on another reader) decodes to something, never to a crash.
enum JSONStringDecoder {
    static func decode(_ body: UnsafeBufferPointer<UInt8>) -> String {
        // Every escape is at least as long as what it stands for, so the body's length suffices.
        String(unsafeUninitializedCapacity: body.count) { output in
            var i = 0
            var o = 0
            let n = body.count
            func emit(_ byte: UInt8) {
                if o < output.count { output[o] = byte; o += 1 }
            }
            while i < n {
                let byte = body[i]
                guard byte == UInt8(ascii: "\\"), i + 1 < n else {
                    emit(byte)
                    i += 1
                    continue
                }
                let kind = body[i + 1]
                i += 2
                switch kind {
                case UInt8(ascii: "b"): emit(0x08)
                case UInt8(ascii: "f"): emit(0x0C)
                case UInt8(ascii: "n"): emit(0x0A)
                case UInt8(ascii: "r"): emit(0x0D)
                case UInt8(ascii: "t"): emit(0x09)
                case UInt8(ascii: "u"):
                    var scalar = UInt32(hexUnit(body, at: i))
                    i += 4
                    if scalar >= 0xD800 && scalar <= 0xDBFF, i + 6 <= n,
                       body[i] == UInt8(ascii: "\\"), body[i + 1] == UInt8(ascii: "u") {
                        let low = UInt32(hexUnit(body, at: i + 2))
                        if low >= 0xDC00 && low <= 0xDFFF {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                            i += 6
                        }
                    }
                    // UTF-8 encoding of the scalar (String's initialiser repairs anything ill-formed).
                    if scalar < 0x80 {
                        emit(UInt8(truncatingIfNeeded: scalar))
                    } else if scalar < 0x800 {
                        emit(0xC0 | UInt8(truncatingIfNeeded: scalar >> 6))
                        emit(0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F))
                    } else if scalar < 0x10000 {
                        emit(0xE0 | UInt8(truncatingIfNeeded: scalar >> 12))
                        emit(0x80 | UInt8(truncatingIfNeeded: (scalar >> 6) & 0x3F))
                        emit(0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F))
                    } else {
                        emit(0xF0 | UInt8(truncatingIfNeeded: scalar >> 18))
                        emit(0x80 | UInt8(truncatingIfNeeded: (scalar >> 12) & 0x3F))
                        emit(0x80 | UInt8(truncatingIfNeeded: (scalar >> 6) & 0x3F))
                        emit(0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F))
                    }
                default: emit(kind) // \" \\ \/
                }
            }
            return o
        }
    }

    /// Four hex digits at `index` (0 for anything that is not a hex digit or lies outside `body`).
    private static func hexUnit(_ body: UnsafeBufferPointer<UInt8>, at index: Int) -> UInt16 {
        var unit: UInt16 = 0
        for k in 0..<4 {
            let at = index + k
            let value = at < body.count ? hexValue(body[at]) ?? 0 : 0
            unit = unit << 4 | UInt16(value)
        }
        return unit
    }
}
