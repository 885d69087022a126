/// A literal as written in the URL, before any model is known.
///
/// It keeps the raw text (for messages and for exact round trips), the value where it can be
/// worked out without a model, and its ``Kind``, which fixes the EDM types a binder may give it.
package struct LiteralSyntax: Sendable, Equatable {
    /// The lexical class of a literal. The binder turns it into an EDM type (see ``defaultEdmTypeName``).
    package enum Kind: Sendable, Equatable {
        case null
        case boolean(Bool)
        /// An integer without suffix. V4: Edm.Int32 if it fits, else Edm.Int64 (the binder may promote
        /// or narrow it to Byte/SByte/Int16 against a property). The value is exact (overflow is a syntax error).
        case integer(Int64)
        /// V2 `123L`: Edm.Int64.
        case int64(Int64)
        /// A number with a decimal point and no exponent, or V2 `1.5M`: Edm.Decimal, kept as exact text
        /// (sign, digits and point only; the suffix is dropped).
        case decimal(String)
        /// A number with an exponent, `INF`, `-INF`, `NaN`, or V2 `1.5d`: Edm.Double.
        case double(Double)
        /// V2 `1.5f`: Edm.Single.
        case single(Double)
        /// `'...'` with `''` unescaped. Also the form of V4 4.01's unprefixed enum and duration values,
        /// which only the binder can tell apart.
        case string(String)
        /// V4 `2012-09-03`: Edm.Date.
        case date(String)
        /// V4 `2012-09-03T13:52Z` or V2 `datetimeoffset'...'`: Edm.DateTimeOffset.
        case dateTimeOffset(String)
        /// V2 `datetime'2013-09-16T00:00'`: Edm.DateTime (no offset).
        case dateTime(String)
        /// V4 `13:52:00`: Edm.TimeOfDay.
        case timeOfDay(String)
        /// V4 `duration'P1D'` or V2 `time'PT13H'`: Edm.Duration (V2 calls it Edm.Time).
        case duration(String)
        /// Edm.Guid, in V4 bare and in V2 as `guid'...'`.
        case guid(String)
        /// `binary'...'` (V4 base64url) or V2 `X'...'`/`binary'...'` (hex): the bytes, decoded.
        case binary([UInt8])
        /// `Namespace.Type'Member,Member'`: the qualified type name and the raw member list.
        case enumeration(typeName: String, value: String)
    }

    package var kind: Kind
    /// The literal exactly as the decoded URL wrote it (after percent-decoding).
    package var text: String
    package var range: SourceRange

    package init(kind: Kind, text: String, range: SourceRange) {
        self.kind = kind
        self.text = text
        self.range = range
    }

    /// The EDM type the OData rules give this literal when nothing else constrains it, for the
    /// binder's first guess: V4 integers are Edm.Int32 when they fit, else Edm.Int64.
    package var defaultEdmTypeName: String? {
        switch kind {
        case .null: nil
        case .boolean: "Edm.Boolean"
        case .integer(let value): (Int64(Int32.min)...Int64(Int32.max)).contains(value) ? "Edm.Int32" : "Edm.Int64"
        case .int64: "Edm.Int64"
        case .decimal: "Edm.Decimal"
        case .double: "Edm.Double"
        case .single: "Edm.Single"
        case .string: "Edm.String"
        case .date: "Edm.Date"
        case .dateTimeOffset: "Edm.DateTimeOffset"
        case .dateTime: "Edm.DateTime"
        case .timeOfDay: "Edm.TimeOfDay"
        case .duration: "Edm.Duration"
        case .guid: "Edm.Guid"
        case .binary: "Edm.Binary"
        case .enumeration(let typeName, _): typeName
        }
    }

    /// Every EDM type the spec's literal rules let this literal denote, for the binder to pick from
    /// against the other operand: `255` may be Byte, SByte (no), Int16, Int32, Int64, Decimal, Single
    /// or Double; `3.14` Decimal, Double or Single; an unprefixed `'...'` also an enum or a Duration.
    package var compatibleEdmTypeNames: [String] {
        switch kind {
        case .null: return []
        case .integer(let value):
            var names: [String] = []
            if (0...255).contains(value) { names.append("Edm.Byte") }
            if (-128...127).contains(value) { names.append("Edm.SByte") }
            if (Int64(Int16.min)...Int64(Int16.max)).contains(value) { names.append("Edm.Int16") }
            if (Int64(Int32.min)...Int64(Int32.max)).contains(value) { names.append("Edm.Int32") }
            return names + ["Edm.Int64", "Edm.Decimal", "Edm.Single", "Edm.Double"]
        case .decimal: return ["Edm.Decimal", "Edm.Single", "Edm.Double"]
        case .double: return ["Edm.Double", "Edm.Single", "Edm.Decimal"]
        case .single: return ["Edm.Single", "Edm.Double"]
        case .string: return ["Edm.String", "Edm.Duration"]
        default: return defaultEdmTypeName.map { [$0] } ?? []
        }
    }
}
