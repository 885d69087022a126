@_spi(Tool) @testable import OfflineOData

extension JSONValue {
    /// A scalar's text as the fixtures mean it: a string's value, a number's digits,
    /// `true`/`false`/`null`; nil for arrays and objects.
    var text: String? {
        switch self {
        case .string(let value): value
        case .number(let number): number.text
        case .bool(let flag): flag ? "true" : "false"
        case .null: "null"
        case .array, .object: nil
        }
    }
}
