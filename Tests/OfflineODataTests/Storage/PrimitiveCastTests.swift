import Testing
@_spi(Tool) @testable import OfflineOData

/// `ood_cast`'s conversions between stored forms (OData 4.01 `cast`, issue 23): literal forms to
/// and from strings, numbers towards zero and range-checked, null where no cast is possible.
@Suite struct PrimitiveCastTests {
    func cast(_ value: SQLValue, _ from: PrimitiveCast.Form, _ to: PrimitiveCast.Form) -> SQLValue {
        PrimitiveCast.convert(value, from: from, to: to)
    }

    @Test func valuesBecomeTheirLiteralText() {
        #expect(cast(.integer(1), .boolean, .string) == .text("true"))
        #expect(cast(.integer(0), .boolean, .string) == .text("false"))
        #expect(cast(.integer(-42), .int32, .string) == .text("-42"))
        #expect(cast(.text("12.50"), .decimal, .string) == .text("12.5"))
        #expect(cast(.real(2.5), .double, .string) == .text("2.5"))
        #expect(cast(.real(100), .double, .string) == .text("100.0"))
        #expect(cast(.real(-.infinity), .double, .string) == .text("-INF"))
        #expect(cast(.text("2023-05-14T20:00:00.0000000Z+05:30"), .dateTimeOffset, .string) == .text("2023-05-14T20:00:00Z"))
        #expect(cast(.text("13:20:00.0000000"), .timeOfDay, .string) == .text("13:20:00"))
        #expect(cast(.text("90061"), .duration, .string) == .text("P1DT1H1M1S"))
        #expect(cast(.null, .int32, .string) == .null)
    }

    @Test func stringsAreReadAsLiteralsOfTheTarget() {
        #expect(cast(.text("42"), .string, .int32) == .integer(42))
        #expect(cast(.text("-7"), .string, .int64) == .integer(-7))
        #expect(cast(.text("12.5"), .string, .int32) == .null)
        #expect(cast(.text(" 42"), .string, .int32) == .null)
        #expect(cast(.text("300"), .string, .byte) == .null)
        #expect(cast(.text("1.50"), .string, .decimal) == .text("1.5"))
        #expect(cast(.text("abc"), .string, .decimal) == .null)
        #expect(cast(.text("1e3"), .string, .double) == .real(1000))
        #expect(cast(.text("0x10"), .string, .double) == .null)
        #expect(cast(.text("INF"), .string, .double) == .real(.infinity))
        #expect(cast(.text("TRUE"), .string, .boolean) == .integer(1))
        #expect(cast(.text("yes"), .string, .boolean) == .null)
        #expect(cast(.text("2024-02-29"), .string, .date) == .text("2024-02-29"))
        #expect(cast(.text("2023-02-29"), .string, .date) == .null)
        #expect(cast(.text("8:5"), .string, .timeOfDay) == .null)
        #expect(cast(.text("08:05:00"), .string, .timeOfDay) == .text("08:05:00.0000000"))
        #expect(cast(.text("6F9619FF-8B86-D011-B42D-00C04FC964FF"), .string, .guid) == .text("6f9619ff-8b86-d011-b42d-00c04fc964ff"))
        #expect(cast(.text("6F9619FF-8B86-D011-B42D-00C04FC964F"), .string, .guid) == .null)
        #expect(cast(.text("PT1M30S"), .string, .duration) == .text("90"))
        #expect(cast(.text("2023-05-15T01:30:00+05:30"), .string, .dateTimeOffset) == .text("2023-05-14T20:00:00.0000000Z"))
        #expect(cast(.text("2023-05-15"), .string, .dateTimeOffset) == .null)
    }

    @Test func numbersGoTowardsZeroAndMustFit() {
        #expect(cast(.text("9.99"), .decimal, .int32) == .integer(9))
        #expect(cast(.text("-9.99"), .decimal, .int32) == .integer(-9))
        #expect(cast(.real(-2.7), .double, .int16) == .integer(-2))
        #expect(cast(.integer(256), .int32, .byte) == .null)
        #expect(cast(.integer(-1), .int32, .byte) == .null)
        #expect(cast(.integer(-128), .int32, .sByte) == .integer(-128))
        #expect(cast(.real(1e30), .double, .int64) == .null)
        #expect(cast(.real(.nan), .double, .int32) == .null)
        #expect(cast(.integer(3), .int32, .decimal) == .text("3"))
        #expect(cast(.real(0.25), .double, .decimal) == .text("0.25"))
        #expect(cast(.text("2.5"), .decimal, .double) == .real(2.5))
        #expect(cast(.integer(9_007_199_254_740_993), .int64, .double) == .real(9_007_199_254_740_992))
    }

    @Test func impossibleCastsAreNull() {
        #expect(cast(.integer(1), .boolean, .int32) == .null)
        #expect(cast(.integer(1), .int32, .boolean) == .null)
        #expect(cast(.text("2020-01-01"), .date, .timeOfDay) == .null)
        #expect(cast(.text("2020-01-01"), .date, .dateTimeOffset) == .null)
        // A DateTimeOffset's date is its date in its own offset.
        #expect(cast(.text("2023-05-14T20:00:00.0000000Z+05:30"), .dateTimeOffset, .date) == .text("2023-05-15"))
    }
}

/// `matchesPattern`'s regular expressions: found anywhere, anchors honoured, bad and dangerous
/// patterns refused with a `.semantic` error naming the cause.
@Suite struct MatchPatternTests {
    @Test func matchesAnywhereUnlessAnchored() throws {
        let pattern = try MatchPattern("^A.*e$")
        #expect(pattern.matches("Alice"))
        #expect(!pattern.matches("Bob Alice"))
        #expect(try MatchPattern("[0-9]{3}").matches("flight 123 to Rome"))
        #expect(try !MatchPattern("[0-9]{3}").matches("flight 12"))
        #expect(try MatchPattern("\\d+").matches("7"))
        #expect(try MatchPattern("^Z.rich$").matches("Zürich"))
    }

    @Test func refusesInvalidLongAndNestedPatterns() {
        func refusal(_ pattern: String) -> ODataError? {
            do throws(ODataError) {
                _ = try MatchPattern(pattern)
                return nil
            } catch {
                return error
            }
        }
        #expect(refusal("(unclosed")?.code == .semantic)
        #expect(refusal("(unclosed")?.message.contains("not a valid regular expression") == true)
        #expect(refusal("[z-a]")?.code == .semantic)
        #expect(refusal(String(repeating: "a", count: MatchPattern.maxLength + 1))?.message.contains("at most 256") == true)
        #expect(refusal("(a+)+$")?.message.contains("exponential") == true)
        #expect(refusal("^(a|aa)*b")?.message.contains("exponential") == true)
        #expect(refusal("((ab)*c){2,}")?.message.contains("exponential") == true)
        // Repetition of a plain group, or one count of a risky group, is fine.
        #expect(refusal("(ab)+c") == nil)
        #expect(refusal("(a|b){3}") == nil)
        #expect(refusal("[(a+)]+") == nil)
        #expect(refusal("\\(a+\\)+") == nil)
        #expect(MatchPattern.nestedRepetition(in: "x(a*)*") == 5)
    }

    /// Patterns made of regular-expression syntax at random (a fixed seed) either compile or are
    /// refused with `.semantic`, and those that compile match a text: never a trap.
    @Test func randomPatternsCompileOrAreRefused() {
        let alphabet = Array("ab()[]{}|*+?^$.\\-,0123:<>=!dwsk")
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: state >> 33)
        }
        var compiled = 0, refused = 0
        for _ in 0..<3000 {
            let length = 1 + next() % 12
            let pattern = String((0..<length).map { _ in alphabet[next() % alphabet.count] })
            do throws(ODataError) {
                let regex = try MatchPattern(pattern)
                _ = regex.matches("ab(a)[b]{1,2}|*+?^$.\\-,0123 aab")
                compiled += 1
            } catch {
                #expect(error.code == .semantic, "\(pattern): \(error)")
                refused += 1
            }
        }
        #expect(compiled > 100 && refused > 100)
    }
}
