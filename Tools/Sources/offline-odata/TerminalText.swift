/// Text from the service or a store (an error message, an archived request's message, a URL) made
/// safe to print: control characters are written as escapes (`\e`, `\r`, `\u{9b}`), so an ESC
/// sequence a service sends cannot recolour, move or rewrite what the terminal shows. Tabs stay.
func terminalSafe(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: isControl) else { return text }
    var result = ""
    result.reserveCapacity(text.utf8.count + 8)
    for scalar in text.unicodeScalars {
        guard isControl(scalar) else {
            result.unicodeScalars.append(scalar)
            continue
        }
        switch scalar {
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\u{1b}": result += "\\e"
        default: result += "\\u{" + String(scalar.value, radix: 16) + "}"
        }
    }
    return result
}

/// C0 controls but the tab, DEL, and the C1 controls (U+0080 to U+009F, which some terminals obey).
private func isControl(_ scalar: Unicode.Scalar) -> Bool {
    (scalar.value < 0x20 && scalar != "\t") || (0x7f...0x9f).contains(scalar.value)
}
