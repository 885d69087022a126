/// Reads exactly the YAML subset of `odata-abnf-testcases.yaml`: comments, a `Constraints` map of
/// string lists, and a `TestCases` list of flat maps whose values are plain, single-quoted or
/// double-quoted scalars, possibly folded over several lines. Every value is kept as a string
/// (YAML 1.1 resolvers would turn `0000-01-01` into a date); raw TABs in plain scalars are kept.
struct YAMLSubsetReader {
    struct Document {
        var constraints: [String: [String]] = [:]
        var testCases: [[String: String]] = []
    }

    private let lines: [Substring]
    private var index = 0

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.hasSuffix("\r") ? line.dropLast() : line
        }
    }

    static func indentation(_ line: Substring) -> Int {
        line.prefix { $0 == " " }.count
    }

    static func isBlankOrComment(_ line: Substring) -> Bool {
        let trimmed = line.drop { $0 == " " || $0 == "\t" }
        return trimmed.isEmpty || trimmed.hasPrefix("#")
    }

    mutating func read() -> Document {
        var document = Document()
        var section = ""
        var currentKey = ""
        var currentCase: [String: String]?
        while index < lines.count {
            let line = lines[index]
            if Self.isBlankOrComment(line) { index += 1; continue }
            let indent = Self.indentation(line)
            let body = line.dropFirst(indent)
            if indent == 0 {
                section = String(body.prefix { $0 != ":" })
                index += 1
                continue
            }
            if section == "Constraints" {
                if body.hasPrefix("- ") {
                    let (value, next) = scalar(String(body.dropFirst(2)), keyIndent: indent, from: index)
                    document.constraints[currentKey, default: []].append(value)
                    index = next
                } else {
                    currentKey = String(body.prefix { $0 != ":" })
                    document.constraints[currentKey, default: []] = document.constraints[currentKey] ?? []
                    index += 1
                }
                continue
            }
            guard section == "TestCases" else { index += 1; continue }
            var entry = body
            var keyIndent = indent
            if entry.hasPrefix("- ") {
                if let finished = currentCase { document.testCases.append(finished) }
                currentCase = [:]
                entry = entry.dropFirst(2)
                keyIndent = indent + 2
            }
            guard let colon = entry.firstIndex(of: ":") else { index += 1; continue }
            let key = String(entry[..<colon])
            let rest = String(entry[entry.index(after: colon)...].drop { $0 == " " })
            if key == "Expect" {
                // A list of strings; the runner does not use it, so skip its items.
                index += 1
                while index < lines.count, !Self.isBlankOrComment(lines[index]), Self.indentation(lines[index]) > keyIndent { index += 1 }
                continue
            }
            let (value, next) = scalar(rest, keyIndent: keyIndent, from: index)
            currentCase?[key] = value
            index = next
        }
        if let finished = currentCase { document.testCases.append(finished) }
        return document
    }

    /// The scalar starting with `first` on line `start`; returns it and the next unread line.
    private func scalar(_ first: String, keyIndent: Int, from start: Int) -> (String, Int) {
        var pieces: [Substring] = [Substring(first)]
        var next = start + 1
        let opening = first.first
        if opening == "\"" || opening == "'" || first.isEmpty {
            // Quoted (or starting on the next line): take lines until the quote closes.
            var quote = opening
            if first.isEmpty, next < lines.count {
                let line = lines[next]
                let trimmed = line.drop { $0 == " " }
                quote = trimmed.first
                pieces = [trimmed]
                next += 1
            }
            if quote == "\"" || quote == "'" {
                while !Self.closes(pieces, quote: quote ?? "\""), next < lines.count {
                    pieces.append(lines[next])
                    next += 1
                }
                return (Self.unquote(pieces, quote: quote ?? "\""), next)
            }
        }
        while next < lines.count {
            let line = lines[next]
            let blank = line.allSatisfy { $0 == " " }
            if !blank && Self.indentation(line) <= keyIndent { break }
            if blank { break }
            pieces.append(line)
            next += 1
        }
        let plain = pieces.enumerated().map { offset, piece in offset == 0 ? piece : piece.drop { $0 == " " } }
        return (plain.joined(separator: " "), next)
    }

    /// Whether the quoted scalar spread over `pieces` has its closing quote.
    private static func closes(_ pieces: [Substring], quote: Character) -> Bool {
        let text = Array(pieces.joined(separator: "\n"))
        var position = 1
        while position < text.count {
            let character = text[position]
            if quote == "\"" && character == "\\" { position += 2; continue }
            if character == quote {
                if quote == "'" && position + 1 < text.count && text[position + 1] == "'" { position += 2; continue }
                return true
            }
            position += 1
        }
        return false
    }

    /// Applies YAML's flow folding and escapes to a quoted scalar.
    private static func unquote(_ pieces: [Substring], quote: Character) -> String {
        let text = Array(pieces.joined(separator: "\n"))
        var output: [Character] = []
        var position = 1
        func trimTrailingSpace() {
            while let last = output.last, last == " " || last == "\t" { output.removeLast() }
        }
        while position < text.count {
            let character = text[position]
            if character == quote {
                if quote == "'" && position + 1 < text.count && text[position + 1] == "'" {
                    output.append("'")
                    position += 2
                    continue
                }
                break
            }
            if character == "\\" && quote == "\"" && position + 1 < text.count {
                let escaped = text[position + 1]
                position += 2
                switch escaped {
                case "n": output.append("\n")
                case "r": output.append("\r")
                case "t": output.append("\t")
                case "0": output.append("\0")
                case "\n":
                    while position < text.count, text[position] == " " || text[position] == "\t" { position += 1 }
                default: output.append(escaped)
                }
                continue
            }
            if character == "\n" {
                trimTrailingSpace()
                position += 1
                var breaks = 0
                while true {
                    var probe = position
                    while probe < text.count, text[probe] == " " || text[probe] == "\t" { probe += 1 }
                    if probe < text.count && text[probe] == "\n" {
                        breaks += 1
                        position = probe + 1
                    } else {
                        position = probe
                        break
                    }
                }
                output.append(contentsOf: breaks == 0 ? [" "] : Array(repeating: "\n", count: breaks))
                continue
            }
            output.append(character)
            position += 1
        }
        return String(output)
    }
}
