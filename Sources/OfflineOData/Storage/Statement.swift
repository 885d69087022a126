internal import CSQLite

/// A value bound to, or read from, an SQL statement.
enum SQLValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// One prepared SQLite statement: bind parameters, step, read columns.
///
/// Parameters are always bound (`?`), never pasted into SQL text.
final class Statement {
    private let handle: OpaquePointer
    private let connection: SQLiteConnection
    /// The bytes of the texts bound last, which SQLite reads in place (`SQLITE_STATIC`) until the
    /// next ``bind(_:)``: one copy into a reused buffer instead of an allocation per text in SQLite.
    private var texts: UnsafeMutableRawPointer?
    private var textsCapacity = 0

    init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
        texts?.deallocate()
    }

    /// Binds `values` to the parameters `?1 ... ?n`, replacing every earlier binding (the count
    /// must match, so no stale binding survives; no separate clearing is needed).
    func bind(_ values: [SQLValue]) throws(ODataError) {
        try bind(count: values.count) { values[$0] }
    }

    /// Binds `value(0) ... value(count - 1)` to `?1 ... ?count`, like ``bind(_:)``, for values
    /// that are not in one array (an entity's present columns): no array is built for them.
    func bind(count: Int, _ value: (Int) -> SQLValue) throws(ODataError) {
        sqlite3_reset(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard count == expected else {
            throw ODataError(.internalError, "statement expects \(expected) parameters, got \(count)")
        }
        var needed = 0
        for index in 0..<count {
            if case .text(let text) = value(index) { needed += text.utf8.count }
        }
        if needed > textsCapacity {
            // The earlier texts go: no binding may point at them any more.
            sqlite3_clear_bindings(handle)
            texts?.deallocate()
            textsCapacity = max(needed, 2 * textsCapacity, 256)
            texts = UnsafeMutableRawPointer.allocate(byteCount: textsCapacity, alignment: 8)
        }
        var used = 0
        for index in 0..<count {
            let position = Int32(index + 1)
            let rc: Int32 = switch value(index) {
            case .null: sqlite3_bind_null(handle, position)
            case .integer(let v): sqlite3_bind_int64(handle, position, v)
            // SQLite would bind a NaN as NULL: it is kept as text (StoredReal).
            case .real(let v): v.isNaN ? sqlite3_bind_text(handle, position, StoredReal.nanText, 3, csqlite_transient())
                : sqlite3_bind_double(handle, position, v)
            case .text(let v): bindText(v, at: position, used: &used)
            case .blob(let v): v.withUnsafeBytes {
                    sqlite3_bind_blob64(handle, position, $0.baseAddress, UInt64($0.count), csqlite_transient())
                }
            }
            guard rc == SQLITE_OK else {
                sqlite3_clear_bindings(handle)
                throw connection.error(rc, "cannot bind parameter \(position)")
            }
        }
    }

    /// Copies the text's UTF-8 into the statement's text buffer and binds it there.
    private func bindText(_ text: String, at position: Int32, used: inout Int) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            // An empty text binds '' (a NULL pointer would bind NULL).
            guard let base = bytes.baseAddress, let buffer = texts, bytes.count > 0 else {
                return sqlite3_bind_text64(handle, position, "", 0, csqlite_transient(), UInt8(SQLITE_UTF8))
            }
            let target = buffer + used
            target.copyMemory(from: base, byteCount: bytes.count)
            used += bytes.count
            return sqlite3_bind_text64(handle, position, target.assumingMemoryBound(to: CChar.self), UInt64(bytes.count),
                                       nil, UInt8(SQLITE_UTF8))
        }
    }

    /// Advances to the next row: true while there is one, false when the statement is done.
    @discardableResult
    func step() throws(ODataError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(rc, "statement failed")
        }
    }

    /// Runs the statement to its end, for statements that return no rows.
    func run(_ values: [SQLValue] = []) throws(ODataError) {
        try bind(values)
        while try step() {}
    }

    func isNull(at column: Int) -> Bool { sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL }

    func int(at column: Int) -> Int64 { sqlite3_column_int64(handle, Int32(column)) }

    func double(at column: Int) -> Double { sqlite3_column_double(handle, Int32(column)) }

    func text(at column: Int) -> String? {
        guard let bytes = sqlite3_column_text(handle, Int32(column)) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, Int32(column)))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    // MARK: Zero-copy access (valid until the next step, reset or finalize)

    /// SQLite's storage class of a result column (`SQLITE_INTEGER`, `SQLITE_TEXT`, ...).
    func columnType(at column: Int) -> Int32 { sqlite3_column_type(handle, Int32(column)) }

    /// The UTF-8 bytes of a text column, borrowed from SQLite: no copy, no String.
    func textBytes(at column: Int) -> UnsafeBufferPointer<UInt8> {
        guard let bytes = sqlite3_column_text(handle, Int32(column)) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, Int32(column))))
    }

    /// A column as an owned value, for the slower paths (codec conversions).
    func value(at column: Int) -> SQLValue {
        switch sqlite3_column_type(handle, Int32(column)) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, Int32(column)))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, Int32(column)))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, Int32(column)))
            guard count > 0, let pointer = sqlite3_column_blob(handle, Int32(column)) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default: return .text(text(at: column) ?? "")
        }
    }

    /// Rewinds the statement so it can be stepped again with the same bindings.
    func rewind() { sqlite3_reset(handle) }
}
