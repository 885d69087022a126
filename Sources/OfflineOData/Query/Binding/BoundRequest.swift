/// A request after binding: every name resolved against the model, every literal typed and in its
/// stored form. It is what the SQL translation and the store's router work from.
@_spi(Tool) public struct BoundRequest: Sendable {
    /// What the resource path addresses.
    package enum Target: Sendable, Equatable {
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
        /// The stream of one media entity (`Documents(1)/$value`, a type with `HasStream`):
        /// answered from its file in the stream folder, not from the tables (docs/MEDIA.md).
        case mediaValue
        /// A V4 `Edm.Stream` property of one entity (`Inspections(1)/photo`): answered from its
        /// file in the stream folder, like ``mediaValue`` (docs/MEDIA.md).
        case streamProperty(name: String)
    }

    package var target: Target
    /// The entities addressed; nil for the service document, `$metadata`, `$batch` and operations.
    package var path: BoundPath?
    package var options: BoundQueryOptions
}

/// The entity-addressing part of a resource path: `People('a')/Trips(1)/PlanItems`.
package struct BoundPath: Sendable {
    package var rootSet: String
    package var rootKey: [BoundKeyValue]?
    package var steps: [BoundPathStep]
    /// The entity set that holds the addressed entities and its (possibly cast) entity type.
    package var entitySet: String
    package var entityType: String
    /// Concrete type names an entity must have after a type cast (`_ood_type`); nil without a cast.
    package var castTypes: [String]?
    package var isCollection: Bool
}

package struct BoundPathStep: Sendable {
    package var navigation: BoundNavigation
    package var key: [BoundKeyValue]?
}

/// One key property's value: `People('russellwhyte')` or `Orders(OrderID=1,Item=2)`.
package struct BoundKeyValue: Sendable, Equatable {
    package var property: String
    package var type: PrimitiveType
    package var value: BoundValue
}

/// The bound system query options of a request or of an expanded navigation.
package struct BoundQueryOptions: Sendable {
    package var filter: BoundExpression?
    /// `$search`, which narrows the entities as `$filter` does.
    package var search: BoundSearch?
    package var orderBy: [BoundOrderBy] = []
    package var top: Int64?
    package var skip: Int64?
    /// nil: every structural property; otherwise the selected property paths (complex paths allowed).
    package var select: [[String]]?
    package var expand: [BoundExpand] = []
    /// `$count=true` (V4) or `$inlinecount=allpages` (V2).
    package var includeCount: Bool = false
    package init() {}
}

package struct BoundOrderBy: Sendable {
    package var expression: BoundExpression
    package var descending: Bool
}

/// `$expand=Nav(...)`: the navigation and the options applied to each parent's related entities.
package struct BoundExpand: Sendable {
    package var navigation: BoundNavigation
    package var options: BoundQueryOptions
}
