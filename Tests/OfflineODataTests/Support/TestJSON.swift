/// A small JSON reader for the fixtures the query tests compare against (no Foundation in tests
/// either): objects, arrays, strings, and other scalars kept as their text.
indirect enum FixtureJSON {
    case string(String)
    case scalar(String)
    case array([FixtureJSON])
    case object([(String, FixtureJSON)])

    subscript(key: String) -> FixtureJSON? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.0 == key }?.1
    }

    var text: String? {
        switch self {
        case .string(let value), .scalar(let value): value
        default: nil
        }
    }
}

struct FixtureJSONReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    private func at(_ index: Int) -> UInt8 { index < bytes.count ? bytes[index] : 0 }

    private mutating func skipSpace() {
        while position < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[position]) { position += 1 }
    }

    mutating func read() -> FixtureJSON? {
        skipSpace()
        switch at(position) {
        case UInt8(ascii: "{"):
            position += 1
            var members: [(String, FixtureJSON)] = []
            skipSpace()
            if at(position) == UInt8(ascii: "}") { position += 1; return .object(members) }
            while true {
                skipSpace()
                guard case .string(let key)? = read() else { return nil }
                skipSpace()
                guard at(position) == UInt8(ascii: ":") else { return nil }
                position += 1
                guard let value = read() else { return nil }
                members.append((key, value))
                skipSpace()
                if at(position) == UInt8(ascii: ",") { position += 1; continue }
                guard at(position) == UInt8(ascii: "}") else { return nil }
                position += 1
                return .object(members)
            }
        case UInt8(ascii: "["):
            position += 1
            var items: [FixtureJSON] = []
            skipSpace()
            if at(position) == UInt8(ascii: "]") { position += 1; return .array(items) }
            while true {
                guard let value = read() else { return nil }
                items.append(value)
                skipSpace()
                if at(position) == UInt8(ascii: ",") { position += 1; continue }
                guard at(position) == UInt8(ascii: "]") else { return nil }
                position += 1
                return .array(items)
            }
        case UInt8(ascii: "\""):
            position += 1
            var output: [UInt8] = []
            while position < bytes.count, bytes[position] != UInt8(ascii: "\"") {
                var byte = bytes[position]
                if byte == UInt8(ascii: "\\") {
                    position += 1
                    byte = at(position)
                    switch byte {
                    case UInt8(ascii: "n"): byte = 0x0A
                    case UInt8(ascii: "r"): byte = 0x0D
                    case UInt8(ascii: "t"): byte = 0x09
                    case UInt8(ascii: "u"):
                        var scalar: UInt32 = 0
                        for offset in 1...4 { scalar = scalar << 4 | UInt32(hexDigit(at(position + offset))) }
                        position += 5
                        output.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar) ?? " ")).utf8))
                        continue
                    default: break
                    }
                }
                output.append(byte)
                position += 1
            }
            position += 1
            return .string(String(decoding: output, as: UTF8.self))
        default:
            let start = position
            while position < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x0A, 0x0D].contains(bytes[position]) {
                position += 1
            }
            guard position > start else { return nil }
            return .scalar(String(decoding: bytes[start..<position], as: UTF8.self))
        }
    }

    private func hexDigit(_ byte: UInt8) -> UInt8 {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - 48
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - 87
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - 55
        default: 0
        }
    }
}
