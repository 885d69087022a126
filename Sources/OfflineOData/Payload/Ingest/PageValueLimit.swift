/// Refuses a page holding a value larger than ``HTTPOptions/maximumValueSize`` while the page's
/// envelope is read (``PageEnvelope``), before anything of it is stored.
///
/// Every string, number and member name of an entity is a byte range of the page; writing one into
/// the store copies it a few times (decoded, bound, SQLite's record). A service that sends
/// one value of 200 MB would make the host hold four copies of it; refused here, it costs only the
/// page's own bytes. The length checked is the JSON text's (between the quotes, escapes as
/// written), never less than the decoded value's.
struct PageValueLimit {
    /// The most bytes one value's JSON text may have.
    let maximumSize: Int

    /// No limit: every value passes.
    static let none = PageValueLimit(maximumSize: .max)

    /// Skips the next value whole, as ``JSONReader/skipValue()`` does, and throws
    /// ``ODataError/Code/network`` for a string, number or member name in it larger than the limit,
    /// naming it by its path from `name` (the member the value belongs to, nil for an element),
    /// which is checked too.
    func skipValue(_ r: inout JSONReader, named name: JSONToken?) throws(ODataError) {
        let offset = r.offset
        if let name { try check(name, of: "a member name", at: offset, reader: r, path: [], member: nil) }
        // The member name of each open container, and the current member's, for the message.
        var path: [JSONToken?] = [name]
        var member: JSONToken?
        var open = 0
        repeat {
            let at = r.offset
            switch try r.next() {
            case .objectStart, .arrayStart:
                path.append(member)
                member = nil
                open += 1
            case .objectEnd, .arrayEnd:
                member = path.popLast() ?? nil
                open -= 1
            case .key where open == 0:
                throw .jsonSyntax("expected a value, found an object key", at: offset)
            case .key(let token):
                try check(token, of: "a member name", at: at, reader: r, path: path, member: nil)
                member = token
            case .string(let token):
                try check(token, of: "the string", at: at, reader: r, path: path, member: member)
            case .number(let token):
                try check(token, of: "the number", at: at, reader: r, path: path, member: member)
            case .end:
                throw .jsonSyntax("expected a value, found the end of the document", at: offset)
            default:
                break
            }
        } while open > 0
        if open < 0 { throw .jsonSyntax("expected a value, found the end of a container", at: offset) }
    }

    /// Throws for a member name larger than the limit (before it is compared, which may decode it).
    func checkName(_ token: JSONToken, at offset: Int, reader: JSONReader) throws(ODataError) {
        try check(token, of: "a member name", at: offset, reader: reader, path: [], member: nil)
    }

    private func check(_ token: JSONToken, of what: String, at offset: Int, reader: JSONReader,
                       path: [JSONToken?], member: JSONToken?) throws(ODataError) {
        let size = token.range.count
        guard size > maximumSize else { return }
        // Names are decoded only here, for the message; a name itself too long is not repeated.
        let names = (path + [member]).compactMap { token in token.map { shortName(reader, $0) } }
        let property = names.isEmpty ? "" : " of '\(names.joined(separator: "/"))'"
        throw ODataError(.network, "\(what)\(property) is \(size) bytes, more than the maximum value size of "
                         + "\(maximumSize) bytes: refused (the limit is HTTPOptions.maximumValueSize, "
                         + "max_value_size in Python, --max-value-size in the tool)", offset: offset)
    }

    /// A member name for a message: cut at 100 bytes, control characters escaped by the printer.
    private func shortName(_ reader: JSONReader, _ token: JSONToken) -> String {
        let text = token.range.count > maximumSize ? "(a long name)" : reader.decodedString(token)
        return text.count > 100 ? String(text.prefix(100)) + "..." : text
    }
}
