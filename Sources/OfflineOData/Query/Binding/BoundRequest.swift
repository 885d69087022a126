/// A request after binding: every name resolved against the model, every literal typed and in its
/// stored form. It is what the SQL translation and the store's router work from.
public struct BoundRequest: Sendable {
    /// What the resource path addresses.
    public enum Target: Sendable, Equatable {
        /// The service document (empty path).
        case serviceDocument
        case metadata
        case batch
        /// A function import, action import or bound operation: the offline store never runs these.
        case operation(name: String)
        /// A collection of entities (an entity set, a to-many navigation).
        case collection
        /// One entity (a key predicate, a to-one navigation).
        case entity
        /// `/$count` of a collection.
        case count
        /// A property of one entity (`People('a')/FirstName`), or its raw value with `/$value`.
        case property(path: [String], rawValue: Bool)
    }

    public var target: Target
    /// The entities addressed; nil for the service document, `$metadata`, `$batch` and operations.
    public var path: BoundPath?
    public var options: BoundQueryOptions
}

/// The entity-addressing part of a resource path: `People('a')/Trips(1)/PlanItems`.
public struct BoundPath: Sendable {
    public var rootSet: String
    public var rootKey: [BoundKeyValue]?
    public var steps: [BoundPathStep]
    /// The entity set that holds the addressed entities and its (possibly cast) entity type.
    public var entitySet: String
    public var entityType: String
    /// Concrete type names an entity must have after a type cast (`_ood_type`); nil without a cast.
    public var castTypes: [String]?
    public var isCollection: Bool
}

public struct BoundPathStep: Sendable {
    public var navigation: BoundNavigation
    public var key: [BoundKeyValue]?
}

/// One key property's value: `People('russellwhyte')` or `Orders(OrderID=1,Item=2)`.
public struct BoundKeyValue: Sendable, Equatable {
    public var property: String
    public var type: PrimitiveType
    public var value: BoundValue
}

/// The bound system query options of a request or of an expanded navigation.
public struct BoundQueryOptions: Sendable {
    public var filter: BoundExpression?
    /// `$search`, which narrows the entities as `$filter` does.
    public var search: BoundSearch?
    public var orderBy: [BoundOrderBy] = []
    public var top: Int64?
    public var skip: Int64?
    /// nil: every structural property; otherwise the selected property paths (complex paths allowed).
    public var select: [[String]]?
    public var expand: [BoundExpand] = []
    /// `$count=true` (V4) or `$inlinecount=allpages` (V2).
    public var includeCount: Bool = false
    public init() {}
}

public struct BoundOrderBy: Sendable {
    public var expression: BoundExpression
    public var descending: Bool
}

/// `$expand=Nav(...)`: the navigation and the options applied to each parent's related entities.
public struct BoundExpand: Sendable {
    public var navigation: BoundNavigation
    public var options: BoundQueryOptions
}
