import Testing
@_spi(Tool) @testable import OfflineOData

/// The download's fast path from JSON text to stored values gives exactly what the codec gives,
/// and leaves to the codec (nil) whatever it does not take, never accepting what the codec refuses.
@Suite struct IngestFormTests {
    let schema: StoreSchema

    init() throws { schema = try StoreSchema(model: MetadataReader.read(readTestMetadataV4)) }

    func column(_ name: String) throws -> StoredColumn {
        let table = try #require(schema.table(forEntitySet: "Agencies"))
        return try #require(table.columns.first { $0.name == name })
    }

    func agrees(_ text: String, _ fast: (UnsafeBufferPointer<UInt8>) -> String?, _ column: StoredColumn) -> Bool {
        let quick = Array(text.utf8).withUnsafeBufferPointer(fast)
        let codec = try? EDMValueCodec.storedValue(fromJSON: .string(text), column: column, dialect: .v4)
        guard let quick else { return true }
        return codec == .text(quick)
    }

    @Test func instantsMatchTheCodecOrAreLeftToIt() throws {
        let founded = try column("Founded")
        let texts = ["2025-01-02T03:04:05Z", "2025-01-02T03:04:05.1Z", "2025-01-02T03:04:05.1234567Z", "2024-02-29T23:59:59.5Z",
                     "0001-01-01T00:00:00Z", "9999-12-31T23:59:59.9999999Z"]
        for text in texts {
            #expect(Array(text.utf8).withUnsafeBufferPointer(IngestForm.instant) != nil, "\(text) takes the fast path")
            #expect(agrees(text, IngestForm.instant, founded), "\(text)")
        }
        let refused = ["2025-02-29T00:00:00Z", "2025-13-01T00:00:00Z", "2025-01-32T00:00:00Z", "2025-01-02T24:00:00Z",
                       "2025-01-02T03:60:00Z", "2025-01-02T03:04:60Z", "2025-01-02T03:04:05.12345678Z", "2025-01-02T03:04:05.Z",
                       "2025-01-02T03:04:05z", "2025-01-02T03:04:05+01:00", "2025-01-02 03:04:05Z", "0000-01-01T00:00:00Z",
                       "2025-1-02T03:04:05Z", "20250102T030405Z", ""]
        for text in refused {
            #expect(Array(text.utf8).withUnsafeBufferPointer(IngestForm.instant) == nil, "\(text) is left to the codec")
        }
    }

    @Test func datesMatchTheCodecOrAreLeftToIt() throws {
        let opened = try column("Opened")
        for text in ["2024-02-29", "1999-12-31", "0001-01-01"] {
            #expect(Array(text.utf8).withUnsafeBufferPointer(IngestForm.date) == text)
            #expect(agrees(text, IngestForm.date, opened))
        }
        for text in ["2023-02-29", "2024-00-10", "2024-04-31", "2024-4-01", "2024-04-01T00:00:00Z", "abcd-ef-gh"] {
            #expect(Array(text.utf8).withUnsafeBufferPointer(IngestForm.date) == nil, "\(text)")
        }
    }

    @Test func decimalsMatchTheCodecOrAreLeftToIt() throws {
        let revenue = try column("Revenue")
        for text in ["0", "7", "-7", "12.34", "-0.5", "0.05", "100", "1234567890123456789012345.000001", "-0.001"] {
            #expect(Array(text.utf8).withUnsafeBufferPointer(IngestForm.decimal) == text, "\(text) takes the fast path")
            #expect(agrees(text, IngestForm.decimal, revenue), "\(text)")
        }
        for text in ["-0", "-0.0", "007", "1.50", "1.", ".5", "+1", "1e3", "1E-2", "12a", "", "-", "0.0", "1..2", "--1"] {
            #expect(Array(text.utf8).withUnsafeBufferPointer(IngestForm.decimal) == nil, "\(text) is left to the codec")
        }
    }

    @Test func formsFollowTheColumnTypes() throws {
        #expect(IngestForm(try column("Name")) == .text)
        #expect(IngestForm(try column("Rating")) == .integer(Int64(Int32.min)...Int64(Int32.max)))
        #expect(IngestForm(try column("Active")) == .boolean)
        #expect(IngestForm(try column("Score")) == .double)
        #expect(IngestForm(try column("Revenue")) == .decimal)
        #expect(IngestForm(try column("Founded")) == .instant)
        #expect(IngestForm(try column("Opened")) == .date)
    }
}
