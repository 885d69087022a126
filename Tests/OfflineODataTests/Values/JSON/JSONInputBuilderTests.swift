import Testing
@testable import OfflineOData

/// A page gathered chunk by chunk keeps its bytes whatever the buffer does: small ones from
/// malloc, then one mapping of the maximum (or doubling without one, or with "no limit").
@Suite struct JSONInputBuilderTests {
    /// `total` bytes in chunks of 10,000, each byte its offset's low bits.
    private func gathered(_ total: Int, maximumSize: Int?) -> (JSONInput, [UInt8]) {
        let expected = (0..<total).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let builder = JSONInputBuilder(maximumSize: maximumSize)
        var offset = 0
        while offset < total {
            let end = min(offset + 10_000, total)
            let accepted = expected[offset..<end].withUnsafeBytes { builder.append($0) }
            #expect(accepted)
            offset = end
        }
        return (builder.finish(), expected)
    }

    @Test(arguments: [nil, 2 << 20, Int.max])
    func theBytesArriveWholeAcrossTheMappingThreshold(maximumSize: Int?) {
        let (input, expected) = gathered(1_000_003, maximumSize: maximumSize)
        #expect(input.count == expected.count)
        #expect(input.buffer.elementsEqual(expected))
    }

    @Test func aRefusedAnswerKeepsOnlyItsFirstBytes() {
        let builder = JSONInputBuilder(maximumSize: 1 << 20)
        let body = Array("{\"error\":{\"message\":\"no\"}}".utf8)
        #expect(body.withUnsafeBytes { builder.append($0) })
        #expect(builder.bytes(upTo: 9) == Array(body.prefix(9)))
        #expect(builder.bytes == body)
    }
}
