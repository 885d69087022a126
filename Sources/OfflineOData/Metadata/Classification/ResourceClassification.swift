/// What a resource path addresses, decided against the model. The stores route on this: the
/// offline store answers entity sets and singletons (with keys and navigation), and refuses
/// function imports, action imports and bound operations, which go to the service.
package enum ResourceClassification: Sendable, Hashable {
    /// An entity set, possibly with a key, navigation, a property and `$count`/`$value`/`$ref`.
    case entitySet(EntityPath)
    /// A singleton, possibly with navigation.
    case singleton(EntityPath)
    /// A function import (V2 service operation or V4 `FunctionImport`).
    case functionImport(FunctionImportCall)
    /// A V4 action import.
    case actionImport(ActionImportCall)
    /// A bound function or action: `Set/NS.Action`, `Set(key)/NS.Function(...)`.
    case boundOperation(BoundOperationCall)
    /// `$metadata`.
    case metadata
    /// `$batch`.
    case batch
    /// Nothing the model knows; the reason says which segment and why.
    case unknown(reason: String)
}

/// A path that starts at an entity set or singleton and addresses entities (or a property of one).
package struct EntityPath: Sendable, Hashable {
    /// The entity set or singleton the path starts at.
    package var root: String
    /// The root's entity type (qualified).
    package var rootType: String
    /// The key predicate on the root, as written (`1`, `ID=1,Name='x'`); nil for the whole set.
    package var key: String?
    package var navigation: [NavigationStep] = []
    /// The entity type addressed at the end (after navigation and type casts).
    package var targetType: String
    /// The entity set the addressed entities live in; nil for containment or an unbound target.
    package var targetEntitySet: String?
    /// Whether the path addresses a collection of entities.
    package var isCollection: Bool
    /// Structural property segments after the entities (`Address/City`), empty when none.
    package var propertyPath: [String] = []
    /// `$count`, `$value` or `$ref` at the end, if present.
    package var suffix: String?
}

/// One navigation step of an ``EntityPath``.
package struct NavigationStep: Sendable, Hashable {
    package var property: String
    /// A key predicate on a collection-valued navigation (`Orders(3)`), as written.
    package var key: String?
    package var targetType: String
    package var targetEntitySet: String?
    package var multiplicity: Multiplicity
}

package struct FunctionImportCall: Sendable, Hashable {
    package var name: String
    /// V4: the qualified name of the imported function.
    package var function: String?
    package var httpMethod: String
    /// The raw text inside the parentheses, if any.
    package var parameters: String?
}

package struct ActionImportCall: Sendable, Hashable {
    package var name: String
    package var action: String
}

package struct BoundOperationCall: Sendable, Hashable {
    package var kind: Operation.Kind
    /// The qualified name of the operation.
    package var operation: String
    /// What the operation is bound to.
    package var binding: EntityPath
    /// The raw text inside the parentheses, if any.
    package var parameters: String?
}
