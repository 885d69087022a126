/// Compares two models (the store's and the service's current one) into a list of
/// ``ModelDifference``s, each with the impact the models alone decide.
///
/// What is compared is what the store depends on: the default container's entity sets and
/// function/action imports, every entity and complex type's properties (type, nullability, max
/// length, precision, scale), keys and navigation properties, enum and V4 operation declarations,
/// and the two annotations the engine acts on (optimistic concurrency, repeatability). Documentation,
/// other vocabulary annotations and source positions are not: a document compared with itself, or
/// with a copy laid out differently, gives no difference.
///
/// Types are compared by qualified name and properties by name, so a rename is a removal and an
/// addition. The list is in a stable order: container first, then types in document order.
public enum ModelComparison {
    public static func differences(from old: MetadataModel, to new: MetadataModel) -> [ModelDifference] {
        var result: [ModelDifference] = []
        compareEntitySets(old, new, into: &result)
        compareImports(old, new, into: &result)
        compareEntityTypes(old, new, into: &result)
        compareComplexTypes(old, new, into: &result)
        compareEnumTypes(old, new, into: &result)
        compareOperations(old, new, into: &result)
        return result
    }

    // MARK: Container

    private static func compareEntitySets(_ old: MetadataModel, _ new: MetadataModel, into result: inout [ModelDifference]) {
        let oldSets = old.entityContainer?.entitySets ?? []
        let newSets = new.entityContainer?.entitySets ?? []
        let newByName = Dictionary(newSets.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let oldNames = Set(oldSets.map(\.name))
        for set in oldSets {
            guard let counterpart = newByName[set.name] else {
                result.append(ModelDifference(kind: .entitySetRemoved, entitySet: set.name, old: set.entityType, impact: .needsData))
                continue
            }
            if set.entityType != counterpart.entityType {
                result.append(ModelDifference(kind: .entitySetTypeChanged, entitySet: set.name, old: set.entityType,
                                              new: counterpart.entityType, impact: .needsData))
            }
            let (wasETag, isETag) = (old.requiresETag(entitySet: set.name), new.requiresETag(entitySet: set.name))
            if wasETag != isETag {
                // Changes now need ETags the store may not hold: a full download brings them.
                result.append(ModelDifference(kind: .concurrencyChanged, entitySet: set.name, old: text(wasETag), new: text(isETag),
                                              impact: isETag ? .needsData : .compatible))
            }
            let (wasRepeatable, isRepeatable) = (old.supportsRepeatableRequests(entitySet: set.name),
                                                 new.supportsRepeatableRequests(entitySet: set.name))
            if wasRepeatable != isRepeatable {
                result.append(ModelDifference(kind: .repeatabilityChanged, entitySet: set.name, old: text(wasRepeatable),
                                              new: text(isRepeatable), impact: .compatible))
            }
        }
        for set in newSets where !oldNames.contains(set.name) {
            result.append(ModelDifference(kind: .entitySetAdded, entitySet: set.name, new: set.entityType, impact: .compatible))
        }
    }

    /// Function and action imports, by name, each with its signature as text.
    private static func compareImports(_ old: MetadataModel, _ new: MetadataModel, into result: inout [ModelDifference]) {
        let oldImports = importSignatures(of: old), newImports = importSignatures(of: new)
        let newByName = Dictionary(newImports, uniquingKeysWith: { first, _ in first })
        let oldNames = Set(oldImports.map(\.name))
        for (name, signature) in oldImports {
            guard let counterpart = newByName[name] else {
                result.append(ModelDifference(kind: .functionImportRemoved, member: name, old: signature, impact: .compatible))
                continue
            }
            if counterpart != signature {
                result.append(ModelDifference(kind: .functionImportChanged, member: name, old: signature, new: counterpart,
                                              impact: .compatible))
            }
        }
        for (name, signature) in newImports where !oldNames.contains(name) {
            result.append(ModelDifference(kind: .functionImportAdded, member: name, new: signature, impact: .compatible))
        }
    }

    /// Each import's name and signature; V3 overloads of one name (bound to several types) are
    /// one entry with their signatures in document order.
    private static func importSignatures(of model: MetadataModel) -> [(name: String, signature: String)] {
        guard let container = model.entityContainer else { return [] }
        var order: [String] = []
        var byName: [String: [String]] = [:]
        func add(_ name: String, _ signature: String) {
            if byName[name] == nil { order.append(name) }
            byName[name, default: []].append(signature)
        }
        for function in container.functionImports {
            let parameters = function.parameters.map { "\($0.name): \($0.type)" }.joined(separator: ", ")
            var signature = function.function.map { "function \($0)" } ?? "\(function.httpMethod) (\(parameters))"
            if let returnType = function.returnType { signature += " -> \(returnType)" }
            add(function.name, signature)
        }
        for action in container.actionImports { add(action.name, "action \(action.action)") }
        return order.map { ($0, (byName[$0] ?? []).joined(separator: "; ")) }
    }

    // MARK: Types

    private static func entityTypes(of model: MetadataModel) -> [EntityType] { model.schemas.flatMap(\.entityTypes) }

    private static func compareEntityTypes(_ old: MetadataModel, _ new: MetadataModel, into result: inout [ModelDifference]) {
        let newTypes = entityTypes(of: new)
        let newByName = Dictionary(newTypes.map { ($0.qualifiedName, $0) }, uniquingKeysWith: { first, _ in first })
        var oldNames: Set<String> = []
        for type in entityTypes(of: old) {
            let name = type.qualifiedName
            oldNames.insert(name)
            guard let counterpart = newByName[name] else {
                result.append(ModelDifference(kind: .entityTypeRemoved, type: name, impact: .needsData))
                continue
            }
            if type.baseType != counterpart.baseType {
                result.append(ModelDifference(kind: .baseTypeChanged, type: name, old: type.baseType, new: counterpart.baseType,
                                              impact: .needsData))
            }
            let oldKey = old.key(of: type).map(\.name), newKey = new.key(of: counterpart).map(\.name)
            if oldKey != newKey {
                result.append(ModelDifference(kind: .keyChanged, type: name, old: oldKey.joined(separator: ","),
                                              new: newKey.joined(separator: ","), impact: .needsData))
            }
            compareProperties(type.properties, counterpart.properties, of: name, into: &result)
            compareNavigations(type.navigationProperties, counterpart.navigationProperties, of: name, into: &result)
        }
        for type in newTypes where !oldNames.contains(type.qualifiedName) {
            result.append(ModelDifference(kind: .entityTypeAdded, type: type.qualifiedName, impact: .compatible))
        }
    }

    private static func compareComplexTypes(_ old: MetadataModel, _ new: MetadataModel, into result: inout [ModelDifference]) {
        let newTypes = new.schemas.flatMap(\.complexTypes)
        let newByName = Dictionary(newTypes.map { ($0.qualifiedName, $0) }, uniquingKeysWith: { first, _ in first })
        var oldNames: Set<String> = []
        for type in old.schemas.flatMap(\.complexTypes) {
            let name = type.qualifiedName
            oldNames.insert(name)
            guard let counterpart = newByName[name] else {
                result.append(ModelDifference(kind: .complexTypeRemoved, type: name, impact: .needsData))
                continue
            }
            if type.baseType != counterpart.baseType {
                result.append(ModelDifference(kind: .baseTypeChanged, type: name, old: type.baseType, new: counterpart.baseType,
                                              impact: .needsData))
            }
            compareProperties(type.properties, counterpart.properties, of: name, into: &result)
            compareNavigations(type.navigationProperties, counterpart.navigationProperties, of: name, into: &result)
        }
        for type in newTypes where !oldNames.contains(type.qualifiedName) {
            result.append(ModelDifference(kind: .complexTypeAdded, type: type.qualifiedName, impact: .compatible))
        }
    }

    /// Enum types by name; a changed member list is a type change of the enum (values stored as
    /// member names may no longer mean anything).
    private static func compareEnumTypes(_ old: MetadataModel, _ new: MetadataModel, into result: inout [ModelDifference]) {
        let newTypes = new.schemas.flatMap(\.enumTypes)
        let newByName = Dictionary(newTypes.map { ($0.qualifiedName, $0) }, uniquingKeysWith: { first, _ in first })
        var oldNames: Set<String> = []
        for type in old.schemas.flatMap(\.enumTypes) {
            oldNames.insert(type.qualifiedName)
            guard let counterpart = newByName[type.qualifiedName] else {
                result.append(ModelDifference(kind: .enumTypeRemoved, type: type.qualifiedName, impact: .needsData))
                continue
            }
            let oldMembers = type.members.map(\.name), newMembers = counterpart.members.map(\.name)
            if oldMembers != newMembers || type.underlyingType != counterpart.underlyingType || type.isFlags != counterpart.isFlags {
                // Members only added at the end keep every stored value's meaning.
                let onlyAdded = newMembers.starts(with: oldMembers) && type.underlyingType == counterpart.underlyingType
                    && type.isFlags == counterpart.isFlags
                result.append(ModelDifference(kind: .propertyTypeChanged, type: type.qualifiedName,
                                              old: oldMembers.joined(separator: ","), new: newMembers.joined(separator: ","),
                                              impact: onlyAdded ? .compatible : .needsData))
            }
        }
        for type in newTypes where !oldNames.contains(type.qualifiedName) {
            result.append(ModelDifference(kind: .enumTypeAdded, type: type.qualifiedName, impact: .compatible))
        }
    }

    /// V4 functions and actions by qualified name, all overloads' signatures together.
    private static func compareOperations(_ old: MetadataModel, _ new: MetadataModel, into result: inout [ModelDifference]) {
        func signatures(_ model: MetadataModel) -> [(name: String, signature: String)] {
            var order: [String] = []
            var byName: [String: [String]] = [:]
            for operation in model.schemas.flatMap(\.operations) {
                let name = operation.qualifiedName
                if byName[name] == nil { order.append(name) }
                let parameters = operation.parameters.map { "\($0.name): \($0.type)" }.joined(separator: ", ")
                var signature = "\(operation.kind.rawValue)\(operation.isBound ? " bound" : "")(\(parameters))"
                if let returnType = operation.returnType { signature += " -> \(returnType.type)" }
                byName[name, default: []].append(signature)
            }
            return order.map { ($0, (byName[$0] ?? []).joined(separator: "; ")) }
        }
        let oldOperations = signatures(old), newOperations = signatures(new)
        let newByName = Dictionary(newOperations, uniquingKeysWith: { first, _ in first })
        let oldNames = Set(oldOperations.map(\.name))
        for (name, signature) in oldOperations {
            guard let counterpart = newByName[name] else {
                result.append(ModelDifference(kind: .operationRemoved, member: name, old: signature, impact: .compatible))
                continue
            }
            if counterpart != signature {
                result.append(ModelDifference(kind: .operationChanged, member: name, old: signature, new: counterpart, impact: .compatible))
            }
        }
        for (name, signature) in newOperations where !oldNames.contains(name) {
            result.append(ModelDifference(kind: .operationAdded, member: name, new: signature, impact: .compatible))
        }
    }

    // MARK: Members

    private static func compareProperties(_ old: [Property], _ new: [Property], of type: String,
                                          into result: inout [ModelDifference]) {
        let newByName = Dictionary(new.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let oldNames = Set(old.map(\.name))
        for property in old {
            guard let counterpart = newByName[property.name] else {
                result.append(ModelDifference(kind: .propertyRemoved, type: type, member: property.name,
                                              old: property.type.description, impact: .needsData))
                continue
            }
            compare(property, counterpart, of: type, into: &result)
        }
        for property in new where !oldNames.contains(property.name) {
            // Rows already stored have no value for it: fine when it may be null or has a default.
            let fits = property.isNullable || property.facets.defaultValue != nil
            result.append(ModelDifference(kind: .propertyAdded, type: type, member: property.name,
                                          new: property.type.description + (property.isNullable ? "" : " not null"),
                                          impact: fits ? .compatible : .needsData))
        }
    }

    private static func compare(_ property: Property, _ counterpart: Property, of type: String, into result: inout [ModelDifference]) {
        let name = property.name
        if property.type.description != counterpart.type.description {
            result.append(ModelDifference(kind: .propertyTypeChanged, type: type, member: name, old: property.type.description,
                                          new: counterpart.type.description, impact: .needsData))
        }
        if property.isNullable && !counterpart.isNullable {
            // Stored rows and future reads are unaffected; only a queued create that lacks a value breaks.
            result.append(ModelDifference(kind: .propertyMadeMandatory, type: type, member: name, old: "nullable",
                                          new: "not null", impact: .compatible))
        } else if !property.isNullable && counterpart.isNullable {
            result.append(ModelDifference(kind: .propertyMadeNullable, type: type, member: name, old: "not null",
                                          new: "nullable", impact: .compatible))
        }
        let (oldFacets, newFacets) = (property.facets, counterpart.facets)
        if oldFacets.maxLength != newFacets.maxLength {
            result.append(ModelDifference(kind: .maxLengthChanged, type: type, member: name, old: text(oldFacets.maxLength),
                                          new: text(newFacets.maxLength),
                                          impact: widens(oldFacets.maxLength, to: newFacets.maxLength) ? .compatible : .needsData))
        }
        if oldFacets.precision != newFacets.precision {
            let wider = newFacets.precision == nil || (oldFacets.precision.map { ($0) <= (newFacets.precision ?? 0) } ?? false)
            result.append(ModelDifference(kind: .precisionChanged, type: type, member: name, old: oldFacets.precision.map(String.init),
                                          new: newFacets.precision.map(String.init), impact: wider ? .compatible : .needsData))
        }
        if oldFacets.scale != newFacets.scale {
            result.append(ModelDifference(kind: .scaleChanged, type: type, member: name, old: text(oldFacets.scale),
                                          new: text(newFacets.scale),
                                          impact: widens(oldFacets.scale, to: newFacets.scale) ? .compatible : .needsData))
        }
    }

    private static func compareNavigations(_ old: [NavigationProperty], _ new: [NavigationProperty], of type: String,
                                           into result: inout [ModelDifference]) {
        let newByName = Dictionary(new.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let oldNames = Set(old.map(\.name))
        for navigation in old {
            guard let counterpart = newByName[navigation.name] else {
                result.append(ModelDifference(kind: .navigationRemoved, type: type, member: navigation.name,
                                              old: navigation.type.description, impact: .compatible))
                continue
            }
            let before = "\(navigation.type) \(navigation.multiplicity.rawValue)"
            let after = "\(counterpart.type) \(counterpart.multiplicity.rawValue)"
            let constraints = { (n: NavigationProperty) in n.referentialConstraints.map { "\($0.property)=\($0.referencedProperty)" } }
            if before != after || constraints(navigation) != constraints(counterpart) {
                result.append(ModelDifference(kind: .navigationChanged, type: type, member: navigation.name, old: before, new: after,
                                              impact: .needsData))
            }
        }
        for navigation in new where !oldNames.contains(navigation.name) {
            result.append(ModelDifference(kind: .navigationAdded, type: type, member: navigation.name,
                                          new: navigation.type.description, impact: .compatible))
        }
    }

    // MARK: Facet order

    /// Whether every value the old length admits, the new one admits too (no length is `max`).
    private static func widens(_ old: Facets.MaxLength?, to new: Facets.MaxLength?) -> Bool {
        switch (old, new) {
        case (_, nil), (_, .max?): true
        case (.length(let before)?, .length(let after)?): after >= before
        case (nil, .length), (.max?, .length): false
        }
    }

    /// Whether the new scale keeps every digit the old one did (`variable` keeps all).
    private static func widens(_ old: Facets.Scale?, to new: Facets.Scale?) -> Bool {
        switch (old, new) {
        case (_, .variable?), (_, .floating?): true
        case (.digits(let before)?, .digits(let after)?): after >= before
        case (nil, .digits(let after)?): after >= 0
        case (_, nil): old == nil || old == .digits(0)
        case (.variable?, .digits), (.floating?, .digits): false
        }
    }

    private static func text(_ flag: Bool) -> String { flag ? "true" : "false" }

    private static func text(_ length: Facets.MaxLength?) -> String? {
        switch length {
        case nil: nil
        case .max?: "max"
        case .length(let value)?: String(value)
        }
    }

    private static func text(_ scale: Facets.Scale?) -> String? {
        switch scale {
        case nil: nil
        case .variable?: "variable"
        case .floating?: "floating"
        case .digits(let value)?: String(value)
        }
    }
}
