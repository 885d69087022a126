import Testing
@_spi(Tool) @testable import OfflineOData

@Suite struct ExactDecimalTests {
    @Test(arguments: [
        ("0", "0"), ("-0", "0"), ("+7", "7"), ("1.50", "1.5"), (".5", "0.5"), ("007.0700", "7.07"),
        ("1e3", "1000"), ("1.2e-3", "0.0012"), ("-12E+2", "-1200"), ("0.000", "0"), ("0.05", "0.05"),
        ("12345678901234567890.123456789", "12345678901234567890.123456789"),
        ("-99999999999999999999999999999999.99", "-99999999999999999999999999999999.99"),
    ])
    func parsesAndPrintsPlainText(input: String, expected: String) throws {
        let value = try #require(ExactDecimal(input))
        #expect(value.description == expected)
    }

    @Test(arguments: ["", "-", ".", "1.2.3", "1e", "e5", "1e99999", "abc", "1,5", " 1", "1 ", "--1", "0x10", "INF", "NaN"])
    func rejectsWhatIsNotADecimal(input: String) {
        #expect(ExactDecimal(input) == nil)
    }

    @Test func addsSubtractsAndMultipliesExactly() throws {
        let d = { (text: String) in ExactDecimal(text) ?? .zero }
        #expect((d("0.1") + d("0.2")).description == "0.3")
        #expect((d("1") - d("1.01")).description == "-0.01")
        #expect((d("-5") + d("3")).description == "-2")
        #expect((d("1.5") * d("-2")).description == "-3")
        #expect((d("12345678901234567890") * d("10.5")).description == "129629628462962962845")
        #expect((d("-0.5") * d("-0.5")).description == "0.25")
        #expect((d("99999999999999999999.99") + d("0.01")).description == "100000000000000000000")
    }

    @Test func dividesToThirtyFourSignificantDigits() throws {
        let d = { (text: String) in ExactDecimal(text) ?? .zero }
        #expect(ExactDecimal.divide(d("10"), by: d("4"))?.description == "2.5")
        #expect(ExactDecimal.divide(d("1"), by: d("3"))?.description == "0." + String(repeating: "3", count: 34))
        #expect(ExactDecimal.divide(d("-7"), by: d("0.5"))?.description == "-14")
        #expect(ExactDecimal.divide(d("0"), by: d("5"))?.description == "0")
        #expect(ExactDecimal.divide(d("5"), by: d("0")) == nil)
    }

    @Test(arguments: [
        ("2.5", "3", "2", "3"), ("-2.5", "-3", "-3", "-2"), ("2.4", "2", "2", "3"), ("0.5", "1", "0", "1"),
        ("-0.5", "-1", "-1", "0"), ("0.49", "0", "0", "1"), ("-1.5", "-2", "-2", "-1"), ("7", "7", "7", "7"),
        ("-0.2", "0", "-1", "0"),
    ])
    func roundsHalfAwayFromZeroAndFloorsAndCeils(input: String, round: String, floor: String, ceiling: String) throws {
        let value = try #require(ExactDecimal(input))
        #expect(value.rounded().description == round)
        #expect(value.floor().description == floor)
        #expect(value.ceiling().description == ceiling)
    }

    @Test func textComparisonAgreesWithExactComparison() {
        // Values chosen to stress the digit-by-digit comparison: signs, zeros, lengths, fractions.
        let texts = ["0", "-0", "0.0", "1", "1.0", "1.00", "-1", "10", "9.99", "-9.99", "100", "0.001", "-0.001",
                     "0.01", "123.456", "123.4560", "-123.456", "99999999999999999999.5", "1e2", "abc", "12.5e-1",
                     "00012", "12", "-00012.000"]
        for a in texts {
            for b in texts {
                let fromText = a.utf8.withContiguousStorageIfAvailable { x in
                    b.utf8.withContiguousStorageIfAvailable { y in
                        compareDecimalText(UnsafeRawBufferPointer(x), UnsafeRawBufferPointer(y))
                    }
                } ?? nil
                switch (ExactDecimal(a), ExactDecimal(b)) {
                case let (x?, y?): #expect(fromText == ExactDecimal.compare(x, y), "\(a) vs \(b)")
                case (.some, nil): #expect(fromText == -1, "\(a) vs \(b)")
                case (nil, .some): #expect(fromText == 1, "\(a) vs \(b)")
                case (nil, nil): #expect(fromText == 0)
                }
            }
        }
    }

    /// No decimal this engine takes costs more than ``ExactDecimal/longestDigits`` digits to store or to
    /// compute with: longer text is not a decimal, however it is written.
    @Test func textOfMoreThanTheLongestDigitsIsNoDecimal() {
        let longest = ExactDecimal.longestDigits
        #expect(ExactDecimal(String(repeating: "9", count: longest))?.integerDigits == longest)
        #expect(ExactDecimal(String(repeating: "9", count: longest + 1)) == nil)
        #expect(ExactDecimal("0." + String(repeating: "1", count: longest)) != nil)
        #expect(ExactDecimal("0." + String(repeating: "1", count: longest + 1)) == nil)
        #expect(ExactDecimal("1e\(longest - 1)")?.integerDigits == longest)
        #expect(ExactDecimal("1e\(longest)") == nil && ExactDecimal("1e-\(longest + 1)") == nil)
        #expect(ExactDecimal("0000" + String(repeating: "5", count: 10)) != nil)  // leading zeros are no digits
    }
}
