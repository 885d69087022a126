import Testing
@_spi(Tool) @testable import OfflineOData

@Suite struct TemporalValueTests {
    @Test(arguments: [
        ("2013-09-16", "2013-09-16T00:00:00.0000000Z"),
        ("2013-09-16T00:00", "2013-09-16T00:00:00.0000000Z"),
        ("2024-01-01T10:00:00+02:00", "2024-01-01T08:00:00.0000000Z"),
        ("2024-01-01T01:30:00-05:30", "2024-01-01T07:00:00.0000000Z"),
        ("2024-03-01T00:30:00+01:00", "2024-02-29T23:30:00.0000000Z"),
        ("2024-01-01T00:00:00.1234567891Z", "2024-01-01T00:00:00.1234567Z"),
        ("2024-01-01T00:00:00.5z", "2024-01-01T00:00:00.5000000Z"),
        ("0001-01-01T00:00:00Z", "0001-01-01T00:00:00.0000000Z"),
        ("9999-12-31T23:59:59.9999999Z", "9999-12-31T23:59:59.9999999Z"),
    ])
    func parsesISOAndNormalisesToUTC(input: String, canonical: String) throws {
        #expect(try #require(TemporalValue(iso: input)).canonicalText == canonical)
    }

    @Test(arguments: ["2023-02-29", "2024-13-01", "2024-00-10", "2024-01-32", "2024-04-31", "2024-01-01T24:00",
                      "2024-01-01T10:60", "2024-1-01", "abc", "", "2024-01-01T10:00:00+24:00", "2024-01-01T10:00:00.",
                      "2024-01-01 10:00", "2024-01-01T10:00:00Zjunk", "0000-01-01"])
    func rejectsWhatIsNoDate(input: String) {
        #expect(TemporalValue(iso: input) == nil)
    }

    @Test func fixedWidthTextsMatchThePaddedForms() {
        // The digit-by-digit writers against the padded interpolation they replace, and the
        // out-of-range fields (year 0 after a UTC shift, year 10000) that take the slow path.
        let values = [TemporalValue(year: 1, month: 1, day: 1), TemporalValue(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59, ticks: 9_999_999),
                      TemporalValue(year: 2024, month: 2, day: 29, hour: 7, minute: 5, second: 3, ticks: 120),
                      TemporalValue(year: 0, month: 12, day: 31, hour: 23), TemporalValue(year: 10000, month: 1, day: 1)]
        for value in values {
            #expect(value.dateText == "\(pad(value.year, 4))-\(pad(value.month, 2))-\(pad(value.day, 2))")
            #expect(value.canonicalText == "\(pad(value.year, 4))-\(pad(value.month, 2))-\(pad(value.day, 2))T\(pad(value.hour, 2)):"
                    + "\(pad(value.minute, 2)):\(pad(value.second, 2)).\(pad(value.ticks, 7))Z")
        }
    }

    @Test func canonicalTextSortsAsTheInstants() throws {
        let inputs = ["2024-01-01T10:00:00+02:00", "2024-01-01T08:00:00.0000001Z", "2023-12-31T23:59:59-09:00",
                      "1999-12-31T23:59:59Z", "2024-01-01T07:59:59.9999999Z", "2000-02-29T12:00:00+14:00",
                      "1970-01-01T00:00:00Z", "1969-12-31T23:59:59.5Z"]
        let values = try inputs.map { try #require(TemporalValue(iso: $0)) }
        for a in values {
            for b in values {
                let byInstant = (a.epochSeconds, a.ticks) < (b.epochSeconds, b.ticks)
                let byText = a.canonicalText < b.canonicalText
                #expect(byInstant == byText, "\(a.canonicalText) vs \(b.canonicalText)")
            }
        }
    }

    @Test func readsAndWritesV2JSONDates() throws {
        let value = try #require(TemporalValue(v2JSON: "/Date(1380000000000)/"))
        #expect(value.canonicalText == "2013-09-24T05:20:00.0000000Z")
        #expect(value.v2JSONText(withOffset: false) == "/Date(1380000000000)/")
        let before1970 = try #require(TemporalValue(v2JSON: "/Date(-86400000)/"))
        #expect(before1970.dateText == "1969-12-31")
        let withOffset = try #require(TemporalValue(v2JSON: "/Date(1380000000000+0060)/"))
        #expect(withOffset.canonicalText == value.canonicalText)
        #expect(withOffset.hour == 6)
        #expect(TemporalValue(iso: "2024-01-01T08:00:00Z")?.epochMilliseconds == 1_704_096_000_000)
        for bad in ["/Date()/", "/Date(abc)/", "Date(1)", "/Date(1+)/", "/Date(99999999999999999999)/", "/Date(1+9999)/"] {
            #expect(TemporalValue(v2JSON: bad) == nil, "\(bad)")
        }
    }

    @Test func calendarArithmeticRoundTripsOverTheWholeRange() {
        // 0001-01-01 is day -719162 and 9999-12-31 is day 2932896 from 1970-01-01.
        #expect(daysSinceEpoch(year: 1, month: 1, day: 1) == -719_162)
        #expect(daysSinceEpoch(year: 9999, month: 12, day: 31) == 2_932_896)
        var day: Int64 = -719_162
        while day <= 2_932_896 {
            let (y, m, d) = civilDate(fromDaysSinceEpoch: day)
            #expect(daysSinceEpoch(year: y, month: m, day: d) == day)
            day += 997
        }
    }

    @Test func timeOfDay() throws {
        let value = try #require(TemporalValue(timeOfDay: "13:20:05.25"))
        #expect(value.timeOfDayText == "13:20:05.25")
        #expect(value.canonicalTimeOfDayText == "13:20:05.2500000")
        #expect(TemporalValue(timeOfDay: "25:00") == nil)
        #expect(TemporalValue(timeOfDay: "10:00Z") == nil)
    }
}

@Suite struct DurationValueTests {
    @Test(arguments: [
        ("P1DT2H30M15.5S", "95415.5", "P1DT2H30M15.5S"), ("PT0S", "0", "PT0S"), ("-PT1M", "-60", "-PT1M"),
        ("PT13H20M00S", "48000", "PT13H20M"), ("P2D", "172800", "P2D"), ("PT36H", "129600", "P1DT12H"),
        ("PT0.0000001S", "0.0000001", "PT0.0000001S"),
    ])
    func parsesAndWrites(input: String, seconds: String, iso: String) throws {
        let value = try #require(DurationValue(iso: input))
        #expect(value.seconds.description == seconds)
        #expect(value.isoText == iso)
    }

    @Test(arguments: ["P1Y", "P1M", "PT", "P", "P1H", "PT1.5M", "PT1S2M", "1D", "", "PT-1S", "P1DT", "PTS", "+PT1S", "+-PT1S"])
    func rejectsWhatIsNoODataDuration(input: String) {
        #expect(DurationValue(iso: input) == nil)
    }

    /// 4.01's `durationValue` has no `+`; a payload may still carry one (4.0 allowed it).
    @Test func aPlusSignOnlyWherePayloadsAreRead() throws {
        #expect(try #require(DurationValue(iso: "+PT1M", allowingPlus: true)).seconds.description == "60")
        #expect(DurationValue(iso: "+-PT1M", allowingPlus: true) == nil)
    }
}
