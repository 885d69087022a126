internal import CSQLite

/// The SQL functions of OData 4.01's type and pattern functions, registered with the others
/// (``SQLFunctions/register(on:)``):
///
/// - `ood_cast(value, from, to)`: ``PrimitiveCast`` between stored forms (the forms' codes are
///   bound parameters); null where the cast is not possible.
/// - `ood_matches(text, pattern)`: ``MatchPattern``; the compiled pattern is kept beside the
///   statement while the pattern argument stays the same. A bad pattern fails the statement with
///   a message starting ``patternFaultPrefix``, which the reader makes a fault of the request.
extension SQLFunctions {
    static let patternFaultPrefix = "matchesPattern: "

    static func registerQueryLanguage(on db: OpaquePointer) -> Int32 {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        var rc = sqlite3_create_function_v2(db, "ood_cast", 3, flags, nil, { context, count, arguments in
            guard let context, let arguments, count == 3 else { return }
            guard let from = PrimitiveCast.Form(rawValue: sqlite3_value_int64(arguments[1])),
                  let to = PrimitiveCast.Form(rawValue: sqlite3_value_int64(arguments[2])) else {
                sqlite3_result_error(context, "ood_cast: unknown type code", -1)
                return
            }
            var value = sqlValue(arguments[0])
            if from == .double || from == .single, case .text(let text) = value, let special = StoredReal.special(text) { value = .real(special) }
            resultValue(context, PrimitiveCast.convert(value, from: from, to: to))
        }, nil, nil, nil)
        if rc == SQLITE_OK {
            rc = sqlite3_create_function_v2(db, "ood_matches", 2, flags, nil, { context, count, arguments in
                guard let context, let arguments, count == 2 else { return }
                guard case .text(let text) = sqlValue(arguments[0]), case .text(let source) = sqlValue(arguments[1]) else {
                    sqlite3_result_null(context)
                    return
                }
                let compiled: CompiledMatchPattern
                if let kept = sqlite3_get_auxdata(context, 1) {
                    compiled = Unmanaged<CompiledMatchPattern>.fromOpaque(kept).takeUnretainedValue()
                } else {
                    do throws(ODataError) {
                        compiled = CompiledMatchPattern(try MatchPattern(source))
                    } catch {
                        sqlite3_result_error(context, error.message, -1)
                        return
                    }
                    sqlite3_set_auxdata(context, 1, Unmanaged.passRetained(compiled).toOpaque()) { pointer in
                        if let pointer { Unmanaged<CompiledMatchPattern>.fromOpaque(pointer).release() }
                    }
                }
                sqlite3_result_int64(context, compiled.pattern.matches(text) ? 1 : 0)
            }, nil, nil, nil)
        }
        return rc
    }
}

/// A function argument as a value (text as UTF-8, blobs as bytes).
private func sqlValue(_ value: OpaquePointer?) -> SQLValue {
    guard let value else { return .null }
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
    case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
    case SQLITE_TEXT:
        guard let bytes = sqlite3_value_text(value) else { return .null }
        return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self))
    case SQLITE_BLOB:
        let count = Int(sqlite3_value_bytes(value))
        guard count > 0, let bytes = sqlite3_value_blob(value) else { return .blob([]) }
        return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
    default: return .null
    }
}

private func resultValue(_ context: OpaquePointer, _ value: SQLValue) {
    switch value {
    case .null: sqlite3_result_null(context)
    case .integer(let number): sqlite3_result_int64(context, number)
    case .real(let number) where number.isNaN: resultValue(context, .text(StoredReal.nanText))
    case .real(let number): sqlite3_result_double(context, number)
    case .text(let text): sqlite3_result_text64(context, text, UInt64(text.utf8.count), csqlite_transient(), UInt8(SQLITE_UTF8))
    case .blob(let bytes): bytes.withUnsafeBytes { sqlite3_result_blob64(context, $0.baseAddress, UInt64($0.count), csqlite_transient()) }
    }
}
