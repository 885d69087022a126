/// Rewrites an ECMAScript regular expression (what OData 4.01's `matchesPattern` names) into the
/// syntax of the standard library's `Regex` with ECMAScript's meaning where the two differ:
///
/// - `\d`, `\w` and `\b` are ASCII (`[0-9]`, `[A-Za-z0-9_]`), where `Regex` would use Unicode's
///   (`\b` through `Regex`'s simple word boundaries over ASCII word characters, which it decides
///   right only on characters, not Unicode scalars: a pattern with `\b` or `\B` matches
///   characters, so a combining mark is part of the character before it);
///   `\s` is ECMAScript's list of white space and line terminators (U+FEFF in, U+0085 out);
/// - `.` is any character but a line terminator (`\n`, `\r`, U+2028, U+2029);
/// - `^` and `$` anchor at the start and end of the text only (no flags in a pattern);
/// - `[^]` is any character, `[]` none; `\cJ` is the control character (`J` % 32).
///
/// The rest (groups, quantifiers, alternation, escapes, back references) passes unchanged: the
/// two syntaxes agree there. `Regex`'s own inline options (`(?i)`) still work, as before.
enum ECMAScriptPattern {
    static let digit = "0-9"
    static let word = "A-Za-z0-9_"
    static let space = "\\t\\n\\x{0B}\\f\\r\\x{20}\\x{A0}\\x{1680}\\x{2000}\\x{2001}\\x{2002}\\x{2003}\\x{2004}\\x{2005}\\x{2006}\\x{2007}\\x{2008}\\x{2009}\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}"
    static let lineTerminators = "\\n\\r\\x{2028}\\x{2029}"
    /// The pattern in `Regex` syntax, or a message saying what is wrong. `\b` and `\B` pass as
    /// they are: ``usesWordBoundary(_:)`` tells the caller to make them ASCII (`Regex` has no
    /// lookbehind to write them out).
    static func translate(_ pattern: String) -> Result<String, PatternError> {
        let characters = Array(pattern.unicodeScalars)
        var output = ""
        var index = 0
        func next() -> Unicode.Scalar? { index + 1 < characters.count ? characters[index + 1] : nil }
        while index < characters.count {
            let character = characters[index]
            switch character {
            case "\\":
                guard let escaped = next() else { return .failure(PatternError("the pattern ends with a lone '\\'")) }
                index += 1
                switch escaped {
                case "d": output += "[\(digit)]"
                case "D": output += "[^\(digit)]"
                case "w": output += "[\(word)]"
                case "W": output += "[^\(word)]"
                case "s": output += "[\(space)]"
                case "S": output += "[^\(space)]"
                case "b", "B":
                    output.unicodeScalars.append("\\")
                    output.unicodeScalars.append(escaped)
                case "c":
                    guard let letter = next(), letter.isASCII, letter.properties.isAlphabetic else {
                        return .failure(PatternError("'\\c' needs a letter after it"))
                    }
                    index += 1
                    output += control(letter)
                default:
                    output.unicodeScalars.append("\\")
                    output.unicodeScalars.append(escaped)
                }
            case "[":
                switch translateClass(characters, from: index) {
                case .success(let (text, end)):
                    output += text
                    index = end
                case .failure(let error):
                    return .failure(error)
                }
            case ".": output += "[^\(lineTerminators)]"
            case "^": output += "\\A"
            case "$": output += "\\z"
            default:
                output.unicodeScalars.append(character)
            }
            index += 1
        }
        return .success(output)
    }

    /// Whether the pattern has `\b` or `\B` outside a character class.
    static func usesWordBoundary(_ pattern: String) -> Bool {
        var escaped = false, inClass = false
        for character in pattern.unicodeScalars {
            if escaped {
                if !inClass && (character == "b" || character == "B") { return true }
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "[" {
                inClass = true
            } else if character == "]" {
                inClass = false
            }
        }
        return false
    }

    /// The character class starting at `start` (`[`), translated; the index of its `]`.
    private static func translateClass(_ characters: [Unicode.Scalar], from start: Int) -> Result<(String, Int), PatternError> {
        var index = start + 1
        var negated = false
        if index < characters.count, characters[index] == "^" {
            negated = true
            index += 1
        }
        if index < characters.count, characters[index] == "]" {
            // ECMAScript's `[]` matches nothing, `[^]` any character.
            return .success((negated ? "[\\x{0}-\\x{10FFFF}]" : "(?!)", index))
        }
        var body = ""
        while index < characters.count, characters[index] != "]" {
            let character = characters[index]
            if character == "\\" {
                guard index + 1 < characters.count else { return .failure(PatternError("the pattern ends with a lone '\\'")) }
                let escaped = characters[index + 1]
                index += 1
                switch escaped {
                case "d": body += digit
                case "D": body += "[^\(digit)]"
                case "w": body += word
                case "W": body += "[^\(word)]"
                case "s": body += space
                case "S": body += "[^\(space)]"
                case "b": body += "\\x{8}"
                case "c":
                    guard index + 1 < characters.count, characters[index + 1].isASCII, characters[index + 1].properties.isAlphabetic else {
                        return .failure(PatternError("'\\c' needs a letter after it"))
                    }
                    index += 1
                    body += control(characters[index])
                default:
                    body.unicodeScalars.append("\\")
                    body.unicodeScalars.append(escaped)
                }
            } else if character == "[" || character == "&" || character == "~" || character == "-" && index + 1 < characters.count && characters[index + 1] == "-" {
                // Ordinary in ECMAScript, set syntax to `Regex`: escaped.
                body += "\\" + String(character)
            } else {
                body.unicodeScalars.append(character)
            }
            index += 1
        }
        guard index < characters.count else { return .failure(PatternError("a character class '[' is not closed")) }
        return .success(("[" + (negated ? "^" : "") + body + "]", index))
    }

    /// `\cX`: the control character whose code is X's modulo 32, as `\x{..}`.
    private static func control(_ letter: Unicode.Scalar) -> String {
        "\\x{" + String(letter.value % 32, radix: 16) + "}"
    }

    struct PatternError: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }
}
