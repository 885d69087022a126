/// The query part of a request, one field per system query option.
///
/// The same type holds the nested options of `$expand=Nav(...)` and `$select=Prop(...)`.
package struct QueryOptionsSyntax: Sendable, Equatable {
    package var filter: ExpressionSyntax?
    package var orderBy: [OrderByItemSyntax]?
    package var top: Int64?
    package var skip: Int64?
    package var select: [SelectItemSyntax]?
    package var expand: [ExpandItemSyntax]?
    /// V4 `$count=true|false`.
    package var count: Bool?
    /// V2 `$inlinecount=allpages|none`.
    package var inlineCount: InlineCount?
    package var search: SearchSyntax?
    package var skipToken: String?
    package var deltaToken: String?
    package var format: String?
    /// `$id` of `$entity` and `$ref` requests.
    package var id: String?
    package var schemaVersion: String?
    package var index: Int64?
    package var compute: [ComputeItemSyntax]?
    /// `$levels` (only inside `$expand`).
    package var levels: Levels?
    /// `@p=value`, in the order written.
    package var parameterAliases: [ParameterAliasSyntax] = []
    /// Options not starting with `$` or `@` (V4 4.01 names without `$` excepted).
    package var customOptions: [CustomQueryOptionSyntax] = []
    /// Where each system option was written, in the order written (a short array: no hashing).
    package var optionRanges: [OptionRange] = []

    /// Where `option` was written, for error messages of later stages.
    package func range(of option: SystemQueryOption) -> SourceRange? {
        optionRanges.first { $0.option == option }?.range
    }

    package struct OptionRange: Sendable, Equatable {
        package var option: SystemQueryOption
        package var range: SourceRange

        package init(option: SystemQueryOption, range: SourceRange) {
            self.option = option
            self.range = range
        }
    }

    package init() {}

    package enum InlineCount: String, Sendable, Equatable { case allPages = "allpages", none }

    package enum Levels: Sendable, Equatable {
        case max
        case count(Int64)
    }
}

/// The system query options the parser knows, by canonical (lowercase) name without `$`.
package enum SystemQueryOption: String, Sendable, Equatable, Hashable, CaseIterable {
    case filter, orderby, top, skip, select, expand, count, inlinecount, search, skiptoken
    case deltatoken, format, id, schemaversion, index, compute, levels, apply
}

package struct OrderByItemSyntax: Sendable, Equatable {
    package var expression: ExpressionSyntax
    package var descending: Bool
    package var range: SourceRange

    package init(expression: ExpressionSyntax, descending: Bool, range: SourceRange) {
        self.expression = expression
        self.descending = descending
        self.range = range
    }
}

/// `$select` item: a path (`Address/Street`, `Model.VipCustomer/Name`, `*`, `Model.*`), optionally
/// with 4.01 nested options (`Addresses($top=5)`) or an operation's parameter names
/// (`Model.MostPopularName(Location,Kind)`, kept as the last segment's argument list).
package struct SelectItemSyntax: Sendable, Equatable {
    package var path: [PathSegmentSyntax]
    package var options: QueryOptionsSyntax?
    package var range: SourceRange

    package init(path: [PathSegmentSyntax], options: QueryOptionsSyntax?, range: SourceRange) {
        self.path = path
        self.options = options
        self.range = range
    }
}

/// `$expand` item: a navigation path (V2 `A/B` expands both levels; V4 allows type casts, `*`,
/// `$ref`, `$count`, `$value`) and the V4 nested options.
package struct ExpandItemSyntax: Sendable, Equatable {
    package var path: [PathSegmentSyntax]
    package var options: QueryOptionsSyntax?
    package var range: SourceRange

    package init(path: [PathSegmentSyntax], options: QueryOptionsSyntax?, range: SourceRange) {
        self.path = path
        self.options = options
        self.range = range
    }
}

/// `$compute=expr as Name`.
package struct ComputeItemSyntax: Sendable, Equatable {
    package var expression: ExpressionSyntax
    package var alias: String
    package var range: SourceRange

    package init(expression: ExpressionSyntax, alias: String, range: SourceRange) {
        self.expression = expression
        self.alias = alias
        self.range = range
    }
}

/// `@name=value`: the value is any expression (a literal, a path, `$root/...`).
package struct ParameterAliasSyntax: Sendable, Equatable {
    package var name: String
    package var value: ExpressionSyntax
    package var range: SourceRange

    package init(name: String, value: ExpressionSyntax, range: SourceRange) {
        self.name = name
        self.value = value
        self.range = range
    }
}

/// `name=value` or a bare `name` the service defines; values stay decoded text.
package struct CustomQueryOptionSyntax: Sendable, Equatable {
    package var name: String
    package var value: String?
    package var range: SourceRange

    package init(name: String, value: String?, range: SourceRange) {
        self.name = name
        self.value = value
        self.range = range
    }
}
