@_spi(Tool) import OfflineOData

/// How the runner treats one ABNF rule: which parser entry point checks it, or why it is skipped.
enum RuleTreatment {
    case run(entry: String, (String) throws(ODataError) -> Void)
    case skip(reason: String)
}

/// Maps ABNF rule names onto the model-free parser's entry points (always the V4 dialect).
///
/// `*Value` rules whose text is the same as the URL literal (numbers, dates, GUIDs) run through
/// `parseLiteral`; payload-only forms (bare durations, enum values, binary without prefix) are
/// skipped, like headers, preferences, context URLs and geospatial literals.
///
/// The parser needs no model, so it takes no name classifier; the YAML's `Constraints` are used
/// for one thing only: custom query option names must be among `customName` (the test cases'
/// stand-in for "options the service defines"), which a model-free parser cannot know.
struct RuleMapping {
    let parser = ODataURLParser(dialect: .v4)
    var customNames: Set<String>?

    /// Rules that denote one query option: a raw `&` starts a second one, which they do not allow.
    static let singleOptionRules: Set<String> = [
        "filter", "expand", "select", "orderby", "orderBy", "skiptoken", "deltatoken", "customQueryOption",
        "systemQueryOption", "compute", "search",
    ]

    /// Custom option names outside `customName` fail right after the name, as the ABNF would.
    func checkCustomNames(_ options: QueryOptionsSyntax) throws(ODataError) {
        guard let customNames else { return }
        for option in options.customOptions where !customNames.contains(option.name) {
            throw ODataError(.syntax, "custom query option '\(option.name)' is not among the test's customName constraint",
                             offset: option.range.offset + option.name.unicodeScalars.count)
        }
    }

    func treatment(for rule: String) -> RuleTreatment {
        let parser = self.parser
        switch rule {
        case "odataRelativeUri":
            return .run(entry: "parse") { input throws(ODataError) in
                let request = try parser.parse(input)
                try self.checkCustomNames(request.options)
            }
        case "resourcePath", "entitySetName", "odataIdentifier":
            return .run(entry: "parseResourcePath") { input throws(ODataError) in _ = try parser.parseResourcePath(input) }
        case "queryOptions", "filter", "expand", "select", "orderby", "orderBy", "skiptoken", "deltatoken",
             "customQueryOption", "systemQueryOption", "compute", "search":
            return .run(entry: "parseQueryOptions") { input throws(ODataError) in
                let options = try parser.parseQueryOptions(input)
                if Self.singleOptionRules.contains(rule), let ampersand = input.unicodeScalars.firstIndex(of: "&") {
                    throw ODataError(.syntax, "the rule \(rule) is a single option", offset: input.unicodeScalars.distance(from: input.unicodeScalars.startIndex, to: ampersand))
                }
                try self.checkCustomNames(options)
            }
        case "searchExpr":
            return .run(entry: "parseSearch") { input throws(ODataError) in _ = try parser.parseSearch(input) }
        case "commonExpr", "boolCommonExpr", "boolcommonExpr", "firstMemberExpr", "propertyPathExpr", "isofExpr", "notExpr":
            return .run(entry: "parseFilter") { input throws(ODataError) in _ = try parser.parseFilter(input) }
        case "anyExpr":
            // A lambda is only valid after a collection path: check it as `x/any(...)`, offsets shifted back.
            return .run(entry: "parseFilter(x/…)") { input throws(ODataError) in
                do throws(ODataError) { _ = try parser.parseFilter("x/" + input) } catch {
                    var shifted = error
                    shifted.offset = error.offset.map { max(0, $0 - 2) }
                    throw shifted
                }
            }
        case "functionParameter":
            return .run(entry: "parseResourcePath(F(…))") { input throws(ODataError) in
                do throws(ODataError) { _ = try parser.parseResourcePath("F(" + input + ")") } catch {
                    var shifted = error
                    shifted.offset = error.offset.map { max(0, $0 - 2) }
                    throw shifted
                }
            }
        case "primitiveLiteral", "stringLiteral", "binaryLiteral", "boolean", "null", "date", "guid", "durationLiteral",
             "enumLiteral", "decimalLiteral", "doubleLiteral", "singleLiteral", "sbyteLiteral", "int16Literal",
             "int32Literal", "int64Literal", "dateTimeOffsetLiteral", "timeOfDayLiteral", "dateTimeOffsetValueInUrl",
             "decimalValue", "doubleValue", "singleValue", "byteValue", "sbyteValue", "int16Value", "int32Value",
             "int64Value", "dateValue", "dateTimeOffsetValue", "timeOfDayValue", "guidValue", "enum", "string",
             "binary", "duration", "nullValue":
            return .run(entry: "parseLiteral") { input throws(ODataError) in
                if rule.hasSuffix("Value"), let percent = input.utf8.firstIndex(of: UInt8(ascii: "%")) {
                    // Payload-form rules (`…Value`) are never percent-encoded.
                    throw ODataError(.syntax, "percent-encoding in a payload value", offset: input.utf8.distance(from: input.utf8.startIndex, to: percent))
                }
                let literal = try parser.parseLiteral(input)
                if let expected = Self.expectedKind(rule), !expected(literal.kind) {
                    // A leading sign is valid in all these types, so they diverge after it.
                    let signed = input.hasPrefix("-") || input.hasPrefix("+")
                    throw ODataError(.syntax, "literal of another type", offset: signed ? 1 : 0)
                }
            }
        case "context", "header", "preference", "prefer", "request-id", "maxpagesizePreference", "includeAnnotationsPreference":
            return .skip(reason: "HTTP headers, preferences and context URLs (not request URL syntax)")
        case "odataUri", "dummyStartRule":
            return .skip(reason: "absolute URIs (scheme, host and service root belong to the transport)")
        case "primitiveValue", "enumValue", "durationValue", "booleanValue", "binaryValue", "stringInUrl", "complexInUri":
            return .skip(reason: "request-body and JSON value forms (not URL literal syntax)")
        default:
            if rule.hasPrefix("geography") || rule.hasPrefix("geometry") {
                return .skip(reason: "geospatial literals (rejected as unsupported by design)")
            }
            return .skip(reason: "rule without a parser entry point")
        }
    }

    /// For rules naming one type, the literal kinds that type admits (the binder's job in the engine).
    static func expectedKind(_ rule: String) -> ((LiteralSyntax.Kind) -> Bool)? {
        switch rule {
        case "boolean", "booleanValue":
            return { if case .boolean = $0 { true } else { false } }
        case "date", "dateValue":
            return { if case .date = $0 { true } else { false } }
        case "dateTimeOffsetValue", "dateTimeOffsetLiteral", "dateTimeOffsetValueInUrl":
            return { if case .dateTimeOffset = $0 { true } else { false } }
        case "timeOfDayValue", "timeOfDayLiteral":
            return { if case .timeOfDay = $0 { true } else { false } }
        case "guid", "guidValue":
            return { if case .guid = $0 { true } else { false } }
        default:
            return nil
        }
    }
}
