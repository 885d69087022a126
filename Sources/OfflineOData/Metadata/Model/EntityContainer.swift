/// An entity container: what a service exposes at its root.
///
/// V4 documents have exactly one. V2/V3 documents may have several, one of them marked
/// `m:IsDefaultEntityContainer="true"`; ``MetadataModel/entityContainer`` picks it.
public struct EntityContainer: Annotatable, Sendable, Hashable {
    public internal(set) var namespace: String
    public internal(set) var name: String
    /// V2/V3 `m:IsDefaultEntityContainer`.
    public internal(set) var isDefault: Bool = false
    /// Qualified name of the container this one extends, if any.
    public internal(set) var extends: String?
    public internal(set) var entitySets: [EntitySet] = []
    public internal(set) var singletons: [Singleton] = []
    public internal(set) var functionImports: [FunctionImport] = []
    public internal(set) var actionImports: [ActionImport] = []
    /// V2/V3 association sets, as written; their effect is in the entity sets' navigation bindings.
    public internal(set) var associationSets: [AssociationSet] = []
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine

    public var qualifiedName: String { namespace + "." + name }

    public func entitySet(named name: String) -> EntitySet? { entitySets.first { $0.name == name } }
    public func singleton(named name: String) -> Singleton? { singletons.first { $0.name == name } }
    public func functionImport(named name: String) -> FunctionImport? { functionImports.first { $0.name == name } }
    public func actionImport(named name: String) -> ActionImport? { actionImports.first { $0.name == name } }
}

/// An entity set: a named collection of entities of one entity type (or types derived from it).
public struct EntitySet: Annotatable, Sendable, Hashable {
    public internal(set) var name: String
    /// Qualified name of the entity type.
    public internal(set) var entityType: String
    /// Which entity set (or singleton) each navigation property's targets live in.
    public internal(set) var navigationPropertyBindings: [NavigationPropertyBinding] = []
    public internal(set) var includeInServiceDocument: Bool = true
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine

    /// The binding target for a navigation property path (`Supplier`, `NS.Derived/Nav`), if bound.
    public func bindingTarget(forPath path: String) -> String? {
        navigationPropertyBindings.first { $0.path == path }?.target
    }
}

/// A singleton: a single entity addressed by name (`/Me`).
public struct Singleton: Annotatable, Sendable, Hashable {
    public internal(set) var name: String
    public internal(set) var type: String
    public internal(set) var navigationPropertyBindings: [NavigationPropertyBinding] = []
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine

    public func bindingTarget(forPath path: String) -> String? {
        navigationPropertyBindings.first { $0.path == path }?.target
    }
}

/// `NavigationPropertyBinding Path="Supplier" Target="Suppliers"`. V2 association sets become these.
public struct NavigationPropertyBinding: Sendable, Hashable {
    /// The navigation property path from the entity set's type (may contain type casts).
    public internal(set) var path: String
    /// The target entity set or singleton: a simple name in the same container, or
    /// `Namespace.Container/Name` for another container.
    public internal(set) var target: String
    public internal(set) var sourceLine: SourceLine
}

/// A function import: V2/V3 service operations (with their own signature and HTTP method) and
/// V4 `FunctionImport` (which names an unbound function).
public struct FunctionImport: Annotatable, Sendable, Hashable {
    public internal(set) var name: String
    /// V4: qualified name of the imported function (its overloads). Nil in V2/V3.
    public internal(set) var function: String?
    /// V2/V3: the return type; nil for none. (V4: see the function's overloads.)
    public internal(set) var returnType: TypeReference?
    /// V2/V3: the parameters. (V4: see the function's overloads.)
    public internal(set) var parameters: [Parameter] = []
    /// The entity set the returned entities belong to, if any.
    public internal(set) var entitySet: String?
    /// V2 `m:HttpMethod` as written (`GET`, `POST`, ...), nil when the document does not say.
    public internal(set) var declaredHTTPMethod: String?
    /// V3 `IsSideEffecting` (default true), `IsBindable`, `IsComposable`.
    public internal(set) var isSideEffecting: Bool?
    public internal(set) var isBindable: Bool = false
    public internal(set) var isComposable: Bool = false
    public internal(set) var includeInServiceDocument: Bool = false
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine

    /// The HTTP method to call the import with: the declared one; else GET for a V4 function
    /// import or a V3 import without side effects; else POST (V2/V3 service operations that may
    /// change data, which is also what `IsSideEffecting` defaults to).
    public var httpMethod: String {
        if let declaredHTTPMethod { return declaredHTTPMethod.uppercased() }
        if function != nil { return "GET" }
        if isSideEffecting == false { return "GET" }
        return "POST"
    }
}

/// A V4 action import: an unbound action exposed at the service root (always POST).
public struct ActionImport: Annotatable, Sendable, Hashable {
    public internal(set) var name: String
    /// Qualified name of the imported action.
    public internal(set) var action: String
    public internal(set) var entitySet: String?
    public internal(set) var annotations: [Annotation] = []
    public internal(set) var foreignAttributes: [XMLAttribute] = []
    public internal(set) var sourceLine: SourceLine
}
