#if canImport(Glibc)
import Glibc
#endif

/// The query part, `name=value&name=value`: split on the raw `&` and `=` of the original text
/// (so `%26` and `%3D` stay data), then each value decoded and parsed by its option's grammar.
struct QueryStringParser {
    let original: [UInt8]
    let dialect: Dialect
    let maxDepth: Int
    /// False when the caller scanned the text and found no `%`: parts then skip their own scan.
    var mayContainPercent = true
    /// ``ODataURLParser/Limits/maxOperators``.
    var maxOperators = 20_000

    func parse(from start: Int, to end: Int) throws(ODataError) -> QueryOptionsSyntax {
        var options = QueryOptionsSyntax()
        var optionStart = start
        while optionStart <= end {
            let optionEnd = ampersand(from: optionStart, to: end)
            if optionEnd > optionStart {
                try parseOption(from: optionStart, to: optionEnd, into: &options)
            }
            optionStart = optionEnd + 1
        }
        return options
    }

    /// The first raw `&` in `original[start..<end]`, or `end` (or `start` when that is past
    /// `end`). Found by memchr within the range clamped to the buffer, so every byte it reads is
    /// in bounds by construction.
    private func ampersand(from start: Int, to end: Int) -> Int {
        original.withUnsafeBufferPointer { buffer in
            let from = max(0, start)
            let limit = min(end, buffer.count)
            guard from < limit, let base = buffer.baseAddress,
                  let found = memchr(base + from, Int32(UInt8(ascii: "&")), limit - from) else { return max(end, from) }
            return UnsafeRawPointer(base).distance(to: found)
        }
    }

    /// One `name[=value]`: a parameter alias, a system query option or a custom option.
    private func parseOption(from start: Int, to end: Int, into options: inout QueryOptionsSyntax) throws(ODataError) {
        var equals = start
        while equals < end && original[equals] != UInt8(ascii: "=") { equals += 1 }
        let nameText = try DecodedText(original, from: start, to: equals, mayContainPercent: mayContainPercent)
        let hasValue = equals < end
        let optionRange = SourceRange(offset: start, length: end - start)

        if nameText.byte(0) == UInt8(ascii: "@") {
            try parseParameterAlias(nameText, equals: equals, to: end, range: optionRange, into: &options)
            return
        }
        guard let option = try systemOption(named: nameText) else {
            options.customOptions.append(CustomQueryOptionSyntax(
                name: nameText.string(0, nameText.count), value: hasValue ? try decodedString(from: equals + 1, to: end) : nil,
                range: optionRange))
            return
        }
        // The name as a string only where it is reported: recognising it read the bytes.
        if options.range(of: option) != nil {
            throw ODataError(.syntax, "duplicate system query option '\(nameText.string(0, nameText.count))'", offset: start)
        }
        guard hasValue else { throw ODataError(.syntax, "'=' expected after \(nameText.string(0, nameText.count))", offset: equals) }
        // The first made with its element: cheaper than growing an empty array.
        if options.optionRanges.isEmpty {
            options.optionRanges = [.init(option: option, range: optionRange)]
        } else {
            options.optionRanges.append(.init(option: option, range: optionRange))
        }
        try parseValue(of: option, from: equals + 1, to: end, optionStart: start, into: &options)
    }

    /// `@name=expression` (V4 only): the alias's value, parsed as a whole expression.
    private func parseParameterAlias(_ nameText: DecodedText, equals: Int, to end: Int, range: SourceRange,
                                     into options: inout QueryOptionsSyntax) throws(ODataError) {
        guard dialect == .v4 else { throw ODataError(.syntax, "parameter aliases are OData V4 syntax", offset: range.offset) }
        guard equals < end else { throw ODataError(.syntax, "'=' expected after a parameter alias", offset: equals) }
        try checkIdentifier(nameText, from: 1)
        var parser = try parser(from: equals + 1, to: end)
        let value = try parser.parseWholeExpression()
        options.parameterAliases.append(ParameterAliasSyntax(name: nameText.string(1, nameText.count), value: value, range: range))
    }

    /// The system query option a name stands for; nil for a custom option. A `$` name must be a
    /// known option; V4 also knows the options without their `$`.
    private func systemOption(named nameText: DecodedText) throws(ODataError) -> SystemQueryOption? {
        guard nameText.byte(0) == UInt8(ascii: "$") else {
            return dialect == .v4 ? Keyword.systemOption(nameText, 0, nameText.count) : nil
        }
        if let option = Keyword.systemOption(nameText, 1, nameText.count) { return option }
        var bad = 1
        while bad < nameText.count && ByteClass.isIdentifierPart(nameText.byte(bad)) { bad += 1 }
        throw nameText.error("unknown system query option '\(nameText.string(0, nameText.count))'", at: bad < nameText.count ? bad : 0)
    }

    /// A system option's value `original[valueStart..<end]`, parsed by that option's grammar.
    private func parseValue(of option: SystemQueryOption, from valueStart: Int, to end: Int, optionStart start: Int,
                            into options: inout QueryOptionsSyntax) throws(ODataError) {
        switch option {
        case .filter, .orderby, .select, .expand, .compute:
            try parseExpressionValue(of: option, from: valueStart, to: end, into: &options)
        case .top, .skip, .index:
            let value = try integer(from: valueStart, to: end, allowNegative: option == .index)
            if option == .top { options.top = value } else if option == .skip { options.skip = value } else { options.index = value }
        case .count:
            guard dialect == .v4 else {
                throw ODataError(.syntax, "$count as a query option is OData V4 syntax; V2 writes $inlinecount=allpages", offset: start)
            }
            let value = try decodedString(from: valueStart, to: end)
            switch String(decoding: value.utf8.map(ByteClass.lower), as: UTF8.self) {
            case "true": options.count = true
            case "false": options.count = false
            default: throw ODataError(.syntax, "$count must be true or false", offset: valueStart)
            }
        case .inlinecount:
            guard dialect == .v2 else {
                throw ODataError(.syntax, "$inlinecount is OData V2 syntax; V4 writes $count=true", offset: start)
            }
            let value = try decodedString(from: valueStart, to: end)
            guard let mode = QueryOptionsSyntax.InlineCount(rawValue: value) else {
                throw ODataError(.syntax, "$inlinecount must be allpages or none", offset: valueStart)
            }
            options.inlineCount = mode
        case .search:
            let text = try DecodedText(original, from: valueStart, to: end, mayContainPercent: mayContainPercent)
            var search = SearchParser(text: text, position: 0, end: text.count, nested: false, maxDepth: maxDepth)
            options.search = try search.parse()
        case .skiptoken: options.skipToken = try decodedString(from: valueStart, to: end)
        case .deltatoken: options.deltaToken = try decodedString(from: valueStart, to: end)
        case .format: options.format = try decodedString(from: valueStart, to: end)
        case .id: options.id = try decodedString(from: valueStart, to: end)
        case .schemaversion: options.schemaVersion = try decodedString(from: valueStart, to: end)
        case .levels:
            throw ODataError(.syntax, "$levels is only allowed inside $expand", offset: start)
        case .apply:
            throw ODataError(.unsupported, "unsupported: $apply (data aggregation) is not implemented", offset: start)
        }
    }

    /// `$filter`, `$orderby`, `$select`, `$expand` and `$compute`: values in the expression
    /// grammar, read by the query parser. Only `$filter` and `$compute` may start with a space.
    @inline(__always)
    private func parseExpressionValue(of option: SystemQueryOption, from valueStart: Int, to end: Int,
                                      into options: inout QueryOptionsSyntax) throws(ODataError) {
        var parser = try parser(from: valueStart, to: end)
        switch option {
        case .filter:
            options.filter = try parser.parseWholeExpression()
            return
        case .orderby:
            try parser.rejectLeadingSpace()
            options.orderBy = try parser.parseOrderByItems()
        case .select:
            try parser.rejectLeadingSpace()
            options.select = try parser.parseSelectItems()
        case .expand:
            try parser.rejectLeadingSpace()
            options.expand = try parser.parseExpandItems()
        default: // .compute, the only other option the caller sends here
            options.compute = try parser.parseComputeItems()
        }
        try parser.expectEnd()
    }

    private func parser(from start: Int, to end: Int) throws(ODataError) -> QueryParser {
        let text = try DecodedText(original, from: start, to: end, mayContainPercent: mayContainPercent)
        return try QueryParser(Lexer(text, dialect: dialect), maxDepth: maxDepth, maxOperators: maxOperators)
    }

    private func decodedString(from start: Int, to end: Int) throws(ODataError) -> String {
        let text = try DecodedText(original, from: start, to: end, mayContainPercent: mayContainPercent)
        return text.string(0, text.count)
    }

    private func integer(from start: Int, to end: Int, allowNegative: Bool) throws(ODataError) -> Int64 {
        let text = try DecodedText(original, from: start, to: end, mayContainPercent: mayContainPercent)
        var digits: [UInt8] = []
        for index in 0..<text.count {
            let byte = text.byte(index)
            guard ByteClass.isDigit(byte) || (index == 0 && byte == UInt8(ascii: "-") && allowNegative) else {
                throw text.error("digits expected", at: index)
            }
            digits.append(byte)
        }
        guard !digits.isEmpty else { throw text.error("digits expected", at: 0) }
        guard let value = LiteralReader.integer(digits) else { throw text.error("integer out of range", at: 0) }
        return value
    }

    private func checkIdentifier(_ text: DecodedText, from start: Int) throws(ODataError) {
        guard ByteClass.isIdentifierStart(text.byte(start)) else { throw text.error("identifier expected", at: start) }
        for index in start..<text.count where !ByteClass.isIdentifierPart(text.byte(index)) {
            throw text.error("identifier expected", at: index)
        }
    }
}
