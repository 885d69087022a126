import Testing
@_spi(Tool) @testable import OfflineOData

/// Damaged input must give a syntax error with an offset inside the input: never a crash, never a
/// document that was not there.
@Suite struct JSONRobustnessTests {
    /// A fixed sample with every kind of token, escapes and non-ASCII text.
    static let sample: [UInt8] = Array(#"""
    {"@odata.context":"$metadata#People","value":[{"ID":-12,"Price":12345678901234567890.123456789,
    "Rate":1.5e-3,"Name":"Caf\u00e9 \"Zoe\" \ud83d\ude00 ümlaut\n","Ok":true,"No":false,"Gone":null,
    "Tags":["a","b",[]],"Nested":{"x":{}}}],"@odata.nextLink":"People?$skiptoken=1"}
    """#.utf8)

    @Test func everyTruncationFailsInsideTheInput() throws {
        #expect(try JSONValue.parse(Self.sample)["value"]?[0]?["Name"] == "Café \"Zoe\" 😀 ümlaut\n")
        for length in 0..<Self.sample.count {
            let prefix = Array(Self.sample[0..<length])
            do {
                let value = try JSONValue.parse(prefix)
                Issue.record("a prefix of \(length) bytes parsed as \(value)")
            } catch {
                #expect(error.code == .syntax)
                #expect((0...length).contains(error.offset ?? -1), "\(length): \(error)")
            }
        }
    }

    @Test func randomDamageNeverCrashes() {
        var random = SplitMix64(seed: 20_240_601)
        let interesting: [UInt8] = Array(#"{}[]",:\/u0eE.-+ tfn"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xBF, 0xC0, 0xED, 0xF4, 0xFF]
        var accepted = 0
        for _ in 0..<3_000 {
            var bytes = Self.sample
            for _ in 0..<(1 + Int(random.next() % 3)) {
                let index = Int(random.next() % UInt64(bytes.count))
                switch random.next() % 3 {
                case 0: bytes[index] = interesting[Int(random.next() % UInt64(interesting.count))]
                case 1: bytes.remove(at: index)
                default: bytes.insert(interesting[Int(random.next() % UInt64(interesting.count))], at: index)
                }
            }
            do {
                let value = try JSONValue.parse(bytes)
                // Whatever was accepted must write and read back the same.
                #expect(try JSONValue.parse(value.serialized()) == value)
                accepted += 1
            } catch {
                #expect(error.code == .syntax)
                #expect((0...bytes.count).contains(error.offset ?? -1))
            }
        }
        #expect(accepted < 3_000)
    }
}

/// A small deterministic generator, so that failures reproduce.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
