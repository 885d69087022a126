/// The query part of a request, one field per system query option.
///
/// The same type holds the nested options of `$expand=Nav(...)` and `$select=Prop(...)`.
public struct QueryOptionsSyntax: Sendable, Equatable {
    public var filter: ExpressionSyntax?
    public var orderBy: [OrderByItemSyntax]?
    public var top: Int64?
    public var skip: Int64?
    public var select: [SelectItemSyntax]?
    public var expand: [ExpandItemSyntax]?
    /// V4 `$count=true|false`.
    public var count: Bool?
    /// V2 `$inlinecount=allpages|none`.
    public var inlineCount: InlineCount?
    public var search: SearchSyntax?
    public var skipToken: String?
    public var deltaToken: String?
    public var format: String?
    /// `$id` of `$entity` and `$ref` requests.
    public var id: String?
    public var schemaVersion: String?
    public var index: Int64?
    public var compute: [ComputeItemSyntax]?
    /// `$levels` (only inside `$expand`).
    public var levels: Levels?
    /// `@p=value`, in the order written.
    public var parameterAliases: [ParameterAliasSyntax] = []
    /// Options not starting with `$` or `@` (V4 4.01 names without `$` excepted).
    public var customOptions: [CustomQueryOptionSyntax] = []
    /// Where each system option was written, in the order written (a short array: no hashing).
    public var optionRanges: [OptionRange] = []

    /// Where `option` was written, for error messages of later stages.
    public func range(of option: SystemQueryOption) -> SourceRange? {
        optionRanges.first { $0.option == option }?.range
    }

    public struct OptionRange: Sendable, Equatable {
        public var option: SystemQueryOption
        public var range: SourceRange

        public init(option: SystemQueryOption, range: SourceRange) {
            self.option = option
            self.range = range
        }
    }

    public init() {}

    public enum InlineCount: String, Sendable, Equatable { case allPages = "allpages", none }

    public enum Levels: Sendable, Equatable {
        case max
        case count(Int64)
    }
}

/// The system query options the parser knows, by canonical (lowercase) name without `$`.
public enum SystemQueryOption: String, Sendable, Equatable, Hashable, CaseIterable {
    case filter, orderby, top, skip, select, expand, count, inlinecount, search, skiptoken
    case deltatoken, format, id, schemaversion, index, compute, levels, apply
}

public struct OrderByItemSyntax: Sendable, Equatable {
    public var expression: ExpressionSyntax
    public var descending: Bool
    public var range: SourceRange

    public init(expression: ExpressionSyntax, descending: Bool, range: SourceRange) {
        self.expression = expression
        self.descending = descending
        self.range = range
    }
}

/// `$select` item: a path (`Address/Street`, `Model.VipCustomer/Name`, `*`, `Model.*`), optionally
/// with 4.01 nested options (`Addresses($top=5)`) or an operation's parameter names
/// (`Model.MostPopularName(Location,Kind)`, kept as the last segment's argument list).
public struct SelectItemSyntax: Sendable, Equatable {
    public var path: [PathSegmentSyntax]
    public var options: QueryOptionsSyntax?
    public var range: SourceRange

    public init(path: [PathSegmentSyntax], options: QueryOptionsSyntax?, range: SourceRange) {
        self.path = path
        self.options = options
        self.range = range
    }
}

/// `$expand` item: a navigation path (V2 `A/B` expands both levels; V4 allows type casts, `*`,
/// `$ref`, `$count`, `$value`) and the V4 nested options.
public struct ExpandItemSyntax: Sendable, Equatable {
    public var path: [PathSegmentSyntax]
    public var options: QueryOptionsSyntax?
    public var range: SourceRange

    public init(path: [PathSegmentSyntax], options: QueryOptionsSyntax?, range: SourceRange) {
        self.path = path
        self.options = options
        self.range = range
    }
}

/// `$compute=expr as Name`.
public struct ComputeItemSyntax: Sendable, Equatable {
    public var expression: ExpressionSyntax
    public var alias: String
    public var range: SourceRange

    public init(expression: ExpressionSyntax, alias: String, range: SourceRange) {
        self.expression = expression
        self.alias = alias
        self.range = range
    }
}

/// `@name=value`: the value is any expression (a literal, a path, `$root/...`).
public struct ParameterAliasSyntax: Sendable, Equatable {
    public var name: String
    public var value: ExpressionSyntax
    public var range: SourceRange

    public init(name: String, value: ExpressionSyntax, range: SourceRange) {
        self.name = name
        self.value = value
        self.range = range
    }
}

/// `name=value` or a bare `name` the service defines; values stay decoded text.
public struct CustomQueryOptionSyntax: Sendable, Equatable {
    public var name: String
    public var value: String?
    public var range: SourceRange

    public init(name: String, value: String?, range: SourceRange) {
        self.name = name
        self.value = value
        self.range = range
    }
}
