/// Collects bound parameters while SQL text is written; returns the `?N` placeholder for each.
struct SQLParameters {
    private(set) var values: [SQLValue] = []

    mutating func add(_ value: SQLValue) -> String {
        values.append(value)
        let number = values.count
        return number < Self.placeholders.count ? Self.placeholders[number] : "?" + String(number)
    }

    /// `?0` ... `?63`, made once: most statements have a handful of parameters.
    private static let placeholders: [String] = (0..<64).map { "?" + String($0) }

    mutating func add(_ value: BoundValue) -> String {
        switch value {
        case .integer(let number): add(SQLValue.integer(number))
        case .real(let number): add(SQLValue.real(number))
        case .text(let text): add(SQLValue.text(text))
        case .bytes(let bytes): add(SQLValue.blob(bytes))
        }
    }
}
