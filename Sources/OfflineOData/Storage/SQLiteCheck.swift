/// One thing a store check found wrong.
public struct StoreFinding: Sendable, Equatable {
    /// Which check found it: `sqlite` (SQLite's integrity check), `queue` (the request queue and
    /// the entities it changes), `membership` (what the defining requests hold), `link`
    /// (navigation links) or `original` (the saved values an undo restores).
    public var check: String
    public var message: String

    public init(check: String, message: String) {
        self.check = check
        self.message = message
    }
}

/// SQLite's own check of a store file, the part of ``StoreFile/check(quick:)`` that needs no
/// model (also run alone when a store opens after an unclean shutdown).
enum SQLiteCheck {
    /// SQLite's `quick_check` or `integrity_check`: each line that is not "ok".
    /// A file too damaged for the check to finish gives SQLite's error as the last finding.
    static func sqliteFindings(on db: SQLiteConnection, quick: Bool) throws(ODataError) -> [StoreFinding] {
        var findings: [StoreFinding] = []
        do throws(ODataError) {
            let statement = try db.prepare(quick ? "PRAGMA quick_check(100)" : "PRAGMA integrity_check(100)")
            try statement.bind([])
            while try statement.step() {
                let line = statement.text(at: 0) ?? ""
                if line != "ok" { findings.append(StoreFinding(check: "sqlite", message: line)) }
            }
            var believed: [StoreFinding] = []
            for finding in findings where try !isFalseNull(finding.message, on: db) { believed.append(finding) }
            findings = believed
        } catch where error.code == .storage || error.code == .notAStore {
            findings.append(StoreFinding(check: "sqlite", message: error.message))
        }
        return findings
    }

    /// Whether `line` is a "NULL value in TABLE.COLUMN" that the table denies: SQLite 3.40's
    /// `quick_check` reports NULLs in the columns of WITHOUT ROWID tables (`ood_membership`) that
    /// hold none (its `integrity_check` does not), so such a line is believed only when a query
    /// finds the NULL.
    private static func isFalseNull(_ line: String, on db: SQLiteConnection) throws(ODataError) -> Bool {
        let prefix = "NULL value in "
        guard line.hasPrefix(prefix), let dot = line.lastIndex(of: ".") else { return false }
        let table = String(line[line.index(line.startIndex, offsetBy: prefix.count)..<dot])
        let column = String(line[line.index(after: dot)...])
        guard !table.isEmpty, !column.isEmpty else { return false }
        let probe = try db.prepare("SELECT 1 FROM \(quoteIdentifier(table)) WHERE \(quoteIdentifier(column)) IS NULL LIMIT 1")
        try probe.bind([])
        return try !probe.step()
    }
}
