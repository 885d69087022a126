/// How the store keeps the Double and Single values SQLite's REAL cannot: SQLite turns a NaN into
/// NULL (when bound, stored or returned by a function), so NaN is kept as the text `NaN`, which a
/// REAL column keeps as text (it is no number to SQLite). Infinities are REAL values as they are.
/// `divby` zero of integers or decimals gives the decimal texts `INF`, `-INF` and `NaN`.
///
/// Text sorts after every number in SQLite, so a stored NaN sorts after INF (nulls first); the
/// translator keeps NaN unequal to everything, itself included, and out of ordering comparisons.
enum StoredReal {
    static let nanText = "NaN"

    /// `INF`, `-INF` or `NaN` as a double; nil for any other text.
    static func special(_ text: String) -> Double? {
        switch text {
        case "INF": .infinity
        case "-INF": -.infinity
        case "NaN": .nan
        default: nil
        }
    }

    /// The text OData writes for a double that is no finite number; nil for a finite one.
    static func specialText(_ number: Double) -> String? {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-INF" : "INF" }
        return nil
    }
}
