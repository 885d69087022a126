/// The regular expression of `matchesPattern(text, pattern)` (OData 4.01), an ECMAScript one
/// rewritten by ``ECMAScriptPattern`` and compiled with the standard library's `Regex` (the
/// engine uses no Foundation, so no `NSRegularExpression`): true when the pattern matches
/// anywhere in the text (`^` and `$` anchor it), on Unicode scalars.
///
/// `Regex` backtracks, so a pattern could take exponential time on a long text. Two guards refuse
/// such patterns before they run, each with a clear error: at most ``maxLength`` characters, and
/// no repeated group that itself repeats or alternates (`(a+)+`, `(a|aa)*`, `(x*){2,}`), the
/// shapes that backtrack exponentially.
struct MatchPattern {
    /// The longest pattern accepted, in characters.
    static let maxLength = 256

    let regex: Regex<AnyRegexOutput>

    /// The pattern compiled, or a `.semantic` error saying what is wrong with it.
    init(_ pattern: String) throws(ODataError) {
        guard pattern.count <= Self.maxLength else {
            throw ODataError(.semantic, "matchesPattern: the pattern is \(pattern.count) characters long; the offline store accepts at most \(Self.maxLength)")
        }
        if let position = Self.nestedRepetition(in: pattern) {
            throw ODataError(.semantic, "matchesPattern: the pattern repeats a group that repeats or alternates itself (at character \(position)), which can take exponential time; the offline store refuses it")
        }
        let translated: String
        switch ECMAScriptPattern.translate(pattern) {
        case .success(let text): translated = text
        case .failure(let error):
            throw ODataError(.semantic, "matchesPattern: '\(pattern)' is not a valid regular expression: \(error.message)")
        }
        do {
            if ECMAScriptPattern.usesWordBoundary(pattern) {
                regex = try Regex(translated).wordBoundaryKind(.simple).asciiOnlyWordCharacters()
            } else {
                regex = try Regex(translated).matchingSemantics(.unicodeScalar)
            }
        } catch {
            throw ODataError(.semantic, "matchesPattern: '\(pattern)' is not a valid regular expression: \(error)")
        }
    }

    func matches(_ text: String) -> Bool { text.contains(regex) }

    /// The character position of a quantifier applied to a group that contains a quantifier or an
    /// alternation, or nil. Escapes and character classes are skipped; `?` inside a group counts
    /// as harmless (it matches at most once).
    static func nestedRepetition(in pattern: String) -> Int? {
        let characters = Array(pattern)
        /// For each open group: whether it holds a repetition or an alternation.
        var groups: [Bool] = []
        var closedRisky = false
        var index = 0
        while index < characters.count {
            let character = characters[index]
            var justClosedRisky = false
            switch character {
            case "\\":
                index += 1
            case "[":
                index += 1
                if index < characters.count, characters[index] == "^" { index += 1 }
                while index < characters.count, characters[index] != "]" {
                    if characters[index] == "\\" { index += 1 }
                    index += 1
                }
            case "(":
                groups.append(false)
            case ")":
                if let risky = groups.popLast() {
                    justClosedRisky = risky
                    if risky, !groups.isEmpty { groups[groups.count - 1] = true }
                }
            case "|":
                if !groups.isEmpty { groups[groups.count - 1] = true }
            case "*", "+", "{":
                if closedRisky && !(character == "{" && isSingleCount(characters, from: index)) { return index }
                if !groups.isEmpty { groups[groups.count - 1] = true }
            default:
                break
            }
            closedRisky = justClosedRisky
            index += 1
        }
        return nil
    }

    /// Whether `{` at `start` is `{n}`: one count, no repetition beyond it.
    private static func isSingleCount(_ characters: [Character], from start: Int) -> Bool {
        var index = start + 1
        while index < characters.count, characters[index].isASCII, characters[index].isNumber { index += 1 }
        return index > start + 1 && index < characters.count && characters[index] == "}"
    }
}

/// A compiled pattern kept by SQLite beside a statement's constant argument (`sqlite3_set_auxdata`),
/// so each row does not compile it again.
final class CompiledMatchPattern {
    let pattern: MatchPattern

    init(_ pattern: MatchPattern) { self.pattern = pattern }
}
