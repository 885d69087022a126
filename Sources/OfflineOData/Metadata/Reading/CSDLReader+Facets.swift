extension CSDLReader {
    /// Applies a facet attribute (`Nullable`, `MaxLength`, ...) to `facets`; false when the
    /// attribute is no facet. Numbers are parsed without any chance of an overflow trap.
    func applyFacet(_ attribute: XMLAttributeView, to facets: inout Facets) throws(ODataError) -> Bool {
        guard attribute.namespaceKind == .none else { return false }
        switch attribute.csdlName {
        case .nullable:
            facets.isNullable = try boolean(attribute)
        case .maxLength:
            let text = attribute.value
            if text == "max" || text == "Max" || text == "MAX" {
                facets.maxLength = .max
            } else {
                facets.maxLength = .length(try nonNegativeInteger(text, attribute))
            }
        case .precision:
            facets.precision = try nonNegativeInteger(attribute.value, attribute)
        case .scale:
            let text = attribute.value
            switch text {
            case "variable", "Variable": facets.scale = .variable
            case "floating": facets.scale = .floating
            default: facets.scale = .digits(try nonNegativeInteger(text, attribute))
            }
        case .srid:
            facets.srid = attribute.value
        case .defaultValue:
            facets.defaultValue = attribute.value
        case .unicode:
            facets.isUnicode = try boolean(attribute)
        case .fixedLength:
            facets.isFixedLength = try boolean(attribute)
        default:
            return false
        }
        return true
    }

    /// A non-negative decimal integer; an error (not a trap) when it is not one or does not fit.
    func nonNegativeInteger(_ text: String, _ attribute: XMLAttributeView) throws(ODataError) -> Int {
        guard let value = parseNonNegativeInteger(text) else {
            throw stream.error("\(attribute.name)=\"\(text)\" is not a non-negative integer", attribute: attribute.name)
        }
        return value
    }
}

/// Parses `[0-9]+` into an `Int`; nil on anything else, including overflow.
func parseNonNegativeInteger(_ text: String) -> Int? {
    var result = 0
    var sawDigit = false
    for byte in text.utf8 {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
        let (sum, overflow2) = times10.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
        if overflow1 || overflow2 { return nil }
        result = sum
        sawDigit = true
    }
    return sawDigit ? result : nil
}

/// Parses `[+-]?[0-9]+` into an `Int64`; nil on anything else, including overflow.
func parseInt64(_ text: String) -> Int64? {
    var bytes = Substring(text).utf8[...]
    var negative = false
    if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
        negative = first == UInt8(ascii: "-")
        bytes = bytes.dropFirst()
    }
    guard !bytes.isEmpty else { return nil }
    var result: Int64 = 0
    for byte in bytes {
        guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        let digit = Int64(byte - UInt8(ascii: "0"))
        let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
        // Accumulate negatively for negative numbers so that Int64.min fits.
        let (next, overflow2) = negative ? times10.subtractingReportingOverflow(digit) : times10.addingReportingOverflow(digit)
        if overflow1 || overflow2 { return nil }
        result = next
    }
    return result
}
