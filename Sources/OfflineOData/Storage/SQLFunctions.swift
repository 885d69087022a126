internal import CSQLite

/// The collation and functions every store connection has, which give SQL the OData semantics
/// SQLite lacks (DESIGN.md §5).
///
/// - `OOD_DECIMAL`: a collation that compares `Edm.Decimal` text numerically, so a decimal column
///   keeps its exact text yet sorts, compares and is indexed by value.
/// - `ood_decimal_add/sub/mul/div(a, b)`, `ood_decimal_round/floor/ceiling(a)`: exact decimal
///   arithmetic on text; division by zero is an error, as OData requires.
/// - `ood_lower(s)`, `ood_upper(s)`: Unicode case mapping (SQLite's `lower`/`upper` are ASCII only).
/// - `ood_int_div(a, b)`, `ood_int_mod(a, b)`: integer `div`/`mod` that fail on zero instead of
///   giving NULL (truncating towards zero; `mod` takes the dividend's sign);
///   `ood_int_add/sub/mul(a, b)`: integer arithmetic that fails on a 64-bit overflow where SQLite
///   would go over to an inexact REAL (the translator uses them only where an overflow is possible).
/// - `ood_decimal_divby(a, b)`: `divby`, which never fails: a zero divisor gives `INF`, `-INF` or `NaN`.
/// - `ood_real_add/sub/mul/div/mod(a, b)`, `ood_real_round/floor/ceiling(a)`: Double and Single
///   arithmetic with IEEE 754 semantics (SQLite makes a NaN NULL and a division by zero NULL):
///   `div` by zero gives INF, -INF or NaN, `mod` is `fmod` and fails on a zero divisor; a NaN
///   argument or result is the text `NaN` (``StoredReal``).
/// - `OOD_INSTANT`: a collation that compares stored DateTimeOffsets by their UTC part only, so an
///   offset kept after it (``StoredInstant``) never makes one instant two.
/// - `ood_instant_local(t)`, `ood_instant_offset(t)`: a stored DateTimeOffset's local date and
///   time in its own offset (laid out as the UTC part) and that offset in minutes.
/// - `ood_cast`, `ood_matches`: OData 4.01's `cast` and `matchesPattern` (`SQLFunctions+QueryLanguage.swift`).
enum SQLFunctions {
    static let decimalCollation = "OOD_DECIMAL"
    /// The error the arithmetic functions raise for a zero divisor (the reader makes it a fault of
    /// the request: ``LocalReader/requestFault(_:)``).
    static let divisionByZeroMessage = "division by zero"
    /// The start of the message of an arithmetic fault other than a zero divisor (an integer
    /// overflow); the reader makes it a fault of the request with the rest of the message.
    static let arithmeticFaultPrefix = "arithmetic: "
    static let instantCollation = "OOD_INSTANT"

    /// Registers the collations and functions on a new connection; the first SQLite error code
    /// that is not `SQLITE_OK` stops it and is returned.
    static func register(on db: OpaquePointer) -> Int32 {
        let steps: [(OpaquePointer) -> Int32] = [
            registerCollations, registerInstantFunctions, registerDecimalArithmetic, registerDecimalRounding,
            registerCaseMappings, registerIntegerDivision, registerIntegerArithmetic, registerRealArithmetic,
            registerRealRounding, registerQueryLanguage,
        ]
        for step in steps {
            let rc = step(db)
            if rc != SQLITE_OK { return rc }
        }
        return SQLITE_OK
    }

    /// A scalar function's body as SQLite calls it (a C function: it captures nothing).
    private typealias ScalarFunction = @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void

    /// Registers one body under several names, each told apart in the body by its user data
    /// (`sqlite3_user_data`: the variant's number plus one, so that none is a null pointer).
    private static func createFunctions(_ variants: [(String, Int32)], arity: Int32, on db: OpaquePointer,
                                        _ body: ScalarFunction) -> Int32 {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        for (name, operation) in variants {
            let rc = sqlite3_create_function_v2(db, name, arity, flags, UnsafeMutableRawPointer(bitPattern: Int(operation) + 1),
                                                body, nil, nil, nil)
            if rc != SQLITE_OK { return rc }
        }
        return SQLITE_OK
    }

    /// `OOD_DECIMAL` and `OOD_INSTANT`.
    private static func registerCollations(on db: OpaquePointer) -> Int32 {
        let rc = sqlite3_create_collation_v2(db, decimalCollation, SQLITE_UTF8, nil, { _, lhsCount, lhs, rhsCount, rhs in
            Int32(compareDecimalText(UnsafeRawBufferPointer(start: lhs, count: Int(lhsCount)),
                                     UnsafeRawBufferPointer(start: rhs, count: Int(rhsCount))))
        }, nil)
        guard rc == SQLITE_OK else { return rc }
        return sqlite3_create_collation_v2(db, instantCollation, SQLITE_UTF8, nil, { _, lhsCount, lhs, rhsCount, rhs in
            Int32(StoredInstant.compare(UnsafeRawBufferPointer(start: lhs, count: Int(lhsCount)),
                                        UnsafeRawBufferPointer(start: rhs, count: Int(rhsCount))))
        }, nil)
    }

    /// `ood_instant_local(t)`, `ood_instant_offset(t)`.
    private static func registerInstantFunctions(on db: OpaquePointer) -> Int32 {
        createFunctions([("ood_instant_local", 0), ("ood_instant_offset", 1)], arity: 1, on: db) { context, count, arguments in
            guard let context, let arguments, count == 1, let value = arguments[0],
                  sqlite3_value_type(value) != SQLITE_NULL, let bytes = sqlite3_value_text(value)
            else {
                if let context { sqlite3_result_null(context) }
                return
            }
            let stored = UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value)))
            if Int(bitPattern: sqlite3_user_data(context)) == 2 {
                sqlite3_result_int64(context, Int64(StoredInstant.offsetMinutes(stored)))
            } else {
                resultText(context, StoredInstant.localText(stored))
            }
        }
    }

    /// `ood_decimal_add/sub/mul/div(a, b)`.
    private static func registerDecimalArithmetic(on db: OpaquePointer) -> Int32 {
        createFunctions([("ood_decimal_add", 0), ("ood_decimal_sub", 1), ("ood_decimal_mul", 2), ("ood_decimal_div", 3),
                         ("ood_decimal_divby", 4)],
                        arity: 2, on: db) { context, count, arguments in
            guard let context, let arguments, count == 2 else { return }
            let operation = Int(bitPattern: sqlite3_user_data(context)) - 1
            // INF, -INF or NaN (from a divby zero) compute as doubles.
            if let a = specialDecimalArgument(arguments[0]), let b = realArgument(arguments[1]) {
                resultSpecialDecimal(context, realOperation(operation, a, b))
                return
            }
            if let b = specialDecimalArgument(arguments[1]), let a = realArgument(arguments[0]) {
                resultSpecialDecimal(context, realOperation(operation, a, b))
                return
            }
            guard let a = decimalArgument(arguments[0]), let b = decimalArgument(arguments[1]) else {
                sqlite3_result_null(context)
                return
            }
            if operation == 4, b.isZero {
                resultText(context, a.isZero ? "NaN" : a.isNegative ? "-INF" : "INF")
                return
            }
            let result: ExactDecimal? = switch operation {
            case 0: a + b
            case 1: a - b
            case 2: a * b
            default: ExactDecimal.divide(a, by: b)
            }
            guard let result else {
                sqlite3_result_error(context, SQLFunctions.divisionByZeroMessage, -1)
                return
            }
            resultText(context, result.description)
        }
    }

    /// `ood_decimal_round/floor/ceiling(a)`.
    private static func registerDecimalRounding(on db: OpaquePointer) -> Int32 {
        createFunctions([("ood_decimal_round", 0), ("ood_decimal_floor", 1), ("ood_decimal_ceiling", 2)], arity: 1, on: db) { context, count, arguments in
            guard let context, let arguments, count == 1 else { return }
            let operation = Int(bitPattern: sqlite3_user_data(context)) - 1
            guard let value = decimalArgument(arguments[0]) else {
                sqlite3_result_null(context)
                return
            }
            let result = operation == 0 ? value.rounded() : operation == 1 ? value.floor() : value.ceiling()
            resultText(context, result.description)
        }
    }

    /// `ood_lower(s)`, `ood_upper(s)`.
    private static func registerCaseMappings(on db: OpaquePointer) -> Int32 {
        createFunctions([("ood_lower", 0), ("ood_upper", 1)], arity: 1, on: db) { context, count, arguments in
            guard let context, let arguments, count == 1 else { return }
            guard let text = textArgument(arguments[0]) else {
                sqlite3_result_null(context)
                return
            }
            let upper = Int(bitPattern: sqlite3_user_data(context)) == 2
            resultText(context, upper ? text.uppercased() : text.lowercased())
        }
    }

    /// `ood_int_div(a, b)`, `ood_int_mod(a, b)`.
    private static func registerIntegerDivision(on db: OpaquePointer) -> Int32 {
        createFunctions([("ood_int_div", 0), ("ood_int_mod", 1)], arity: 2, on: db) { context, count, arguments in
            guard let context, let arguments, count == 2 else { return }
            guard let a = arguments[0], let b = arguments[1],
                  sqlite3_value_type(a) != SQLITE_NULL, sqlite3_value_type(b) != SQLITE_NULL
            else {
                sqlite3_result_null(context)
                return
            }
            let dividend = sqlite3_value_int64(a), divisor = sqlite3_value_int64(b)
            guard divisor != 0 else {
                sqlite3_result_error(context, SQLFunctions.divisionByZeroMessage, -1)
                return
            }
            let isMod = Int(bitPattern: sqlite3_user_data(context)) == 2
            let (quotient, overflow) = dividend.dividedReportingOverflow(by: divisor)
            let (remainder, _) = dividend.remainderReportingOverflow(dividingBy: divisor)
            if !isMod && overflow {
                sqlite3_result_error(context, SQLFunctions.overflowMessage("div"), -1)
                return
            }
            sqlite3_result_int64(context, isMod ? remainder : quotient)
        }
    }

    /// The message of an integer overflow in `op`, a fault of the request.
    static func overflowMessage(_ op: String) -> String {
        arithmeticFaultPrefix + "integer overflow in '\(op)': the result is outside Edm.Int64's range for an entity in the store"
    }

    /// `ood_int_add(a, b)`, `ood_int_sub(a, b)`, `ood_int_mul(a, b)`.
    private static func registerIntegerArithmetic(on db: OpaquePointer) -> Int32 {
        createFunctions([("ood_int_add", 0), ("ood_int_sub", 1), ("ood_int_mul", 2)], arity: 2, on: db) { context, count, arguments in
            guard let context, let arguments, count == 2 else { return }
            guard let a = arguments[0], let b = arguments[1],
                  sqlite3_value_type(a) != SQLITE_NULL, sqlite3_value_type(b) != SQLITE_NULL
            else {
                sqlite3_result_null(context)
                return
            }
            let x = sqlite3_value_int64(a), y = sqlite3_value_int64(b)
            let operation = Int(bitPattern: sqlite3_user_data(context)) - 1
            let (result, overflow) = switch operation {
            case 0: x.addingReportingOverflow(y)
            case 1: x.subtractingReportingOverflow(y)
            default: x.multipliedReportingOverflow(by: y)
            }
            if overflow {
                sqlite3_result_error(context, SQLFunctions.overflowMessage(operation == 0 ? "add" : operation == 1 ? "sub" : "mul"), -1)
                return
            }
            sqlite3_result_int64(context, result)
        }
    }

    /// `ood_real_add/sub/mul/div/mod(a, b)`: IEEE 754 double arithmetic; `mod` by zero fails.
    private static func registerRealArithmetic(on db: OpaquePointer) -> Int32 {
        createFunctions([("ood_real_add", 0), ("ood_real_sub", 1), ("ood_real_mul", 2), ("ood_real_div", 3), ("ood_real_mod", 5)],
                        arity: 2, on: db) { context, count, arguments in
            guard let context, let arguments, count == 2 else { return }
            guard let a = realArgument(arguments[0]), let b = realArgument(arguments[1]) else {
                sqlite3_result_null(context)
                return
            }
            let operation = Int(bitPattern: sqlite3_user_data(context)) - 1
            if operation == 5 && b == 0 {
                sqlite3_result_error(context, SQLFunctions.divisionByZeroMessage, -1)
                return
            }
            resultReal(context, realOperation(operation, a, b))
        }
    }

    /// `ood_real_round(a)` (half away from zero), `ood_real_floor(a)`, `ood_real_ceiling(a)`.
    private static func registerRealRounding(on db: OpaquePointer) -> Int32 {
        createFunctions([("ood_real_round", 0), ("ood_real_floor", 1), ("ood_real_ceiling", 2)], arity: 1, on: db) { context, count, arguments in
            guard let context, let arguments, count == 1 else { return }
            guard let value = realArgument(arguments[0]) else {
                sqlite3_result_null(context)
                return
            }
            let rule: FloatingPointRoundingRule = switch Int(bitPattern: sqlite3_user_data(context)) - 1 {
            case 0: .toNearestOrAwayFromZero
            case 1: .down
            default: .up
            }
            resultReal(context, value.rounded(rule))
        }
    }
}

/// `a op b` in doubles, IEEE 754: 0 add, 1 sub, 2 mul, 3 div, 4 divby (as div), 5 mod (`fmod`).
private func realOperation(_ operation: Int, _ a: Double, _ b: Double) -> Double {
    switch operation {
    case 0: a + b
    case 1: a - b
    case 2: a * b
    case 5: a.truncatingRemainder(dividingBy: b)
    default: a / b
    }
}

/// A function argument as a double: reals and integers as they are, the stored text `NaN`,
/// `INF`, `-INF` (``StoredReal``) and decimal text read as numbers; nil for null and other text.
private func realArgument(_ value: OpaquePointer?) -> Double? {
    guard let value else { return nil }
    switch sqlite3_value_type(value) {
    case SQLITE_FLOAT: return sqlite3_value_double(value)
    case SQLITE_INTEGER: return Double(sqlite3_value_int64(value))
    case SQLITE_TEXT:
        guard let text = textArgument(value) else { return nil }
        return StoredReal.special(text) ?? (PrimitiveCast.isNumberText(text) ? Double(text) : nil)
    default: return nil
    }
}

/// `INF`, `-INF` or `NaN` text (a `divby` zero's decimal result) as a double; nil for anything else.
private func specialDecimalArgument(_ value: OpaquePointer?) -> Double? {
    guard let value, sqlite3_value_type(value) == SQLITE_TEXT, let text = textArgument(value) else { return nil }
    return StoredReal.special(text)
}

/// A double result; NaN as the text `NaN`, which SQLite would make NULL.
private func resultReal(_ context: OpaquePointer, _ number: Double) {
    if number.isNaN {
        resultText(context, StoredReal.nanText)
    } else {
        sqlite3_result_double(context, number)
    }
}

/// A decimal result computed as a double from INF, -INF or NaN: those as text, a finite one exactly.
private func resultSpecialDecimal(_ context: OpaquePointer, _ number: Double) {
    if let text = StoredReal.specialText(number) {
        resultText(context, text)
    } else {
        resultText(context, ExactDecimal("\(number)")?.description ?? "0")
    }
}

/// A function argument as an exact decimal: integers and text exactly, reals through their text.
private func decimalArgument(_ value: OpaquePointer?) -> ExactDecimal? {
    guard let value else { return nil }
    switch sqlite3_value_type(value) {
    case SQLITE_INTEGER: return ExactDecimal(sqlite3_value_int64(value))
    case SQLITE_FLOAT:
        let double = sqlite3_value_double(value)
        return double.isFinite ? ExactDecimal("\(double)") : nil
    case SQLITE_TEXT:
        guard let bytes = sqlite3_value_text(value) else { return nil }
        return ExactDecimal(utf8: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))))
    default: return nil
    }
}

private func textArgument(_ value: OpaquePointer?) -> String? {
    guard let value, sqlite3_value_type(value) != SQLITE_NULL, let bytes = sqlite3_value_text(value) else { return nil }
    return String(decoding: UnsafeBufferPointer(start: bytes, count: Int(sqlite3_value_bytes(value))), as: UTF8.self)
}

private func resultText(_ context: OpaquePointer, _ text: String) {
    sqlite3_result_text64(context, text, UInt64(text.utf8.count), csqlite_transient(), UInt8(SQLITE_UTF8))
}
