import Testing
@_spi(Tool) @testable import OfflineOData

@Suite struct SQLFunctionsTests {
    private func connection() throws -> SQLiteConnection {
        try SQLiteConnection(path: ":memory:", create: true)
    }

    private func texts(_ db: SQLiteConnection, _ sql: String, _ arguments: [SQLValue] = []) throws -> [String] {
        let statement = try db.prepare(sql)
        try statement.bind(arguments)
        var result: [String] = []
        while try statement.step() { result.append(statement.text(at: 0) ?? "NULL") }
        return result
    }

    @Test func decimalColumnsSortAndCompareByValueAndKeepTheirText() throws {
        let db = try connection()
        try db.execute("CREATE TABLE t (price TEXT COLLATE OOD_DECIMAL); CREATE INDEX t_price ON t (price);")
        let insert = try db.prepare("INSERT INTO t VALUES (?1)")
        for value in ["10", "9.5", "-1", "100.00", "0.001", "12345678901234567890.5", "-0.5", "9.50"] {
            try insert.run([.text(value)])
        }
        #expect(try texts(db, "SELECT price FROM t ORDER BY price") ==
                ["-1", "-0.5", "0.001", "9.5", "9.50", "10", "100.00", "12345678901234567890.5"])
        #expect(try texts(db, "SELECT price FROM t WHERE price > ?1 ORDER BY price", [.text("9.75")]) ==
                ["10", "100.00", "12345678901234567890.5"])
        #expect(try texts(db, "SELECT price FROM t WHERE price = ?1 ORDER BY price", [.text("9.5000")]) == ["9.5", "9.50"])
        // The comparison uses the index: the collation is the column's.
        let plan = try db.prepare("EXPLAIN QUERY PLAN SELECT price FROM t WHERE price > ?1")
        try plan.bind([.text("1")])
        var details: [String] = []
        while try plan.step() { details.append(plan.text(at: 3) ?? "") }
        #expect(details.contains { $0.contains("INDEX t_price") }, "\(details)")
    }

    @Test func exactDecimalArithmetic() throws {
        let db = try connection()
        #expect(try texts(db, "SELECT ood_decimal_add('0.1', '0.2')") == ["0.3"])
        #expect(try texts(db, "SELECT ood_decimal_sub(1, '1.01')") == ["-0.01"])
        #expect(try texts(db, "SELECT ood_decimal_mul('1.5', -2)") == ["-3"])
        #expect(try texts(db, "SELECT ood_decimal_div('10', '4')") == ["2.5"])
        #expect(try texts(db, "SELECT ood_decimal_round('-2.5'), ood_decimal_floor('-2.5'), ood_decimal_ceiling('-2.5')") == ["-3"])
        #expect(try texts(db, "SELECT ood_decimal_add(NULL, '1')") == ["NULL"])
        #expect { try texts(db, "SELECT ood_decimal_div('1', '0')") } throws: {
            ($0 as? ODataError)?.message.contains("division by zero") == true
        }
    }

    @Test func unicodeCaseMapping() throws {
        let db = try connection()
        #expect(try texts(db, "SELECT ood_lower('ÄÖÜ Straße ABC')") == ["äöü straße abc"])
        #expect(try texts(db, "SELECT ood_upper('äöü abc')") == ["ÄÖÜ ABC"])
        #expect(try texts(db, "SELECT lower('ÄBC')") == ["Äbc"]) // why ood_lower exists
    }

    @Test func integerDivisionAndModuloFollowOData() throws {
        let db = try connection()
        let statement = try db.prepare("SELECT ood_int_div(7, -2), ood_int_mod(-5, 3), ood_int_mod(5, -3), ood_int_div(-7, 2)")
        #expect(try statement.step())
        #expect(statement.int(at: 0) == -3)
        #expect(statement.int(at: 1) == -2)
        #expect(statement.int(at: 2) == 2)
        #expect(statement.int(at: 3) == -3)
        #expect { try texts(db, "SELECT ood_int_div(1, 0)") } throws: {
            ($0 as? ODataError)?.message.contains("division by zero") == true
        }
        #expect { try texts(db, "SELECT ood_int_mod(1, 0)") } throws: { $0 is ODataError }
        #expect { try texts(db, "SELECT ood_int_div(-9223372036854775808, -1)") } throws: {
            ($0 as? ODataError)?.message.contains("overflow") == true
        }
    }
}
