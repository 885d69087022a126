import Testing
@_spi(Tool) @testable import OfflineOData

/// The writer's zero-copy routes must give exactly what `EDMValueCodec` gives.
@Suite struct FastValueFormTests {
    @Test func fastFormsAgreeWithTheCodec() throws {
        let store = try ReadTestStore()
        guard let table = store.schema.table(forEntitySet: "Agencies"),
              let founded = table.column(named: "Founded"), let revenue = table.column(named: "Revenue"),
              let big = table.column(named: "Big"), let name = table.column(named: "Name") else {
            Issue.record("columns missing")
            return
        }
        let samples: [(StoredColumn, SQLValue)] = [
            (founded, .text("2020-01-01T00:00:00.0000000Z")), (founded, .text("1999-12-31T23:59:59.1230000Z")),
            (founded, .text("0001-01-01T00:00:00.0000001Z")), (founded, .text("2020-01-01T00:00:00.1000000Z")),
            (revenue, .text("9.5")), (revenue, .text("-0.001")), (revenue, .text("12345678901234567890.123456789")),
            (big, .integer(Int64.min)), (name, .text("O'Brien \"&\" \u{1}")), (name, .null),
        ]
        for dialect in [Dialect.v4, .v2] {
            for (column, value) in samples {
                let statement = try store.db.prepare("SELECT ?1")
                try statement.bind([value])
                _ = try statement.step()
                var fast = JSONWriter()
                try EntityRowWriter.writeValue(statement, 0, column, dialect: dialect, to: &fast)
                var codec = JSONWriter()
                try EDMValueCodec.write(value, column: column, dialect: dialect, to: &codec)
                #expect(fast.bytes == codec.bytes, "\(column.name) \(value) \(dialect): \(String(decoding: fast.bytes, as: UTF8.self)) vs \(String(decoding: codec.bytes, as: UTF8.self))")
            }
        }
    }
}
