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

    // MARK: Pairing by name

    /// Pairs the items of `old` and `new` by `name`: `removed` for an old one that `new` lacks,
    /// `matched` for one in both, `added` for a new one; in the old list's order, then the new's.
    private static func pair<Item>(_ old: [Item], _ new: [Item], by name: (Item) -> String,
                                   removed: (Item) -> Void, matched: (Item, Item) -> Void, added: (Item) -> Void) {
        let newByName = Dictionary(new.map { (name($0), $0) }, uniquingKeysWith: { first, _ in first })
        let oldNames = Set(old.map(name))
        for item in old {
            if let counterpart = newByName[name(item)] { matched(item, counterpart) } else { removed(item) }
        }
        for item in new where !oldNames.contains(name(item)) { added(item) }
    }

    /// Named signatures (imports, operations) compared as text: removed, changed or added, each
    /// compatible (the store keeps no data of theirs).
    private static func compareSignatures(_ old: [(name: String, signature: String)], _ new: [(name: String, signature: String)],
                                          kinds: (removed: ModelDifference.Kind, changed: ModelDifference.Kind, added: ModelDifference.Kind),
                                          into result: inout [ModelDifference]) {
        pair(old, new, by: \.name, removed: { item in
            result.append(ModelDifference(kind: kinds.removed, member: item.name, old: item.signature, impact: .compatible))
        }, matched: { item, counterpart in
            if item.signature != counterpart.signature {
                result.append(ModelDifference(kind: kinds.changed, member: item.name, old: item.signature, new: counterpart.signature,
                                              impact: .compatible))
            }
        }, added: { item in
            result.append(ModelDifference(kind: kinds.added, member: item.name, new: item.signature, impact: .compatible))
        })
    }

    /// `entries` (name, signature) with the signatures of one name joined in document order, the
    /// names in the order they first come (overloads are one entry).
    private static func grouped(_ entries: [(name: String, signature: String)]) -> [(name: String, signature: String)] {
        var order: [String] = []
        var byName: [String: [String]] = [:]
        for (name, signature) in entries {
            if byName[name] == nil { order.append(name) }
            byName[name, default: []].append(signature)
        }
        return order.map { ($0, (byName[$0] ?? []).joined(separator: "; ")) }
    }

    // MARK: Container

    private static func compareEntitySets(_ old: MetadataModel, _ new: MetadataModel, into result: inout [ModelDifference]) {
        pair(old.entityContainer?.entitySets ?? [], new.entityContainer?.entitySets ?? [], by: \.name, removed: { set in
            result.append(ModelDifference(kind: .entitySetRemoved, entitySet: set.name, old: set.entityType, impact: .needsData))
        }, matched: { set, counterpart in
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
        }, added: { set in
            result.append(ModelDifference(kind: .entitySetAdded, entitySet: set.name, new: set.entityType, impact: .compatible))
        })
    }

    /// Function and action imports, by name, each with its signature as text.
    private static func compareImports(_ old: MetadataModel, _ new: MetadataModel, into result: inout [ModelDifference]) {
        compareSignatures(importSignatures(of: old), importSignatures(of: new),
                          kinds: (.functionImportRemoved, .functionImportChanged, .functionImportAdded), into: &result)
    }

    /// Each import's name and signature; V3 overloads of one name (bound to several types) are
    /// one entry with their signatures in document order.
    private static func importSignatures(of model: MetadataModel) -> [(name: String, signature: String)] {
        guard let container = model.entityContainer else { return [] }
        var entries: [(name: String, signature: String)] = []
        for function in container.functionImports {
            let parameters = function.parameters.map { "\($0.name): \($0.type)" }.joined(separator: ", ")
            var signature = function.function.map { "function \($0)" } ?? "\(function.httpMethod) (\(parameters))"
            if let returnType = function.returnType { signature += " -> \(returnType)" }
            entries.append((function.name, signature))
        }
        for action in container.actionImports { entries.append((action.name, "action \(action.action)")) }
        return grouped(entries)
    }

    // MARK: Types

    private static func compareEntityTypes(_ old: MetadataModel, _ new: MetadataModel, into result: inout [ModelDifference]) {
        pair(old.schemas.flatMap(\.entityTypes), new.schemas.flatMap(\.entityTypes), by: \.qualifiedName, removed: { type in
            result.append(ModelDifference(kind: .entityTypeRemoved, type: type.qualifiedName, impact: .needsData))
        }, matched: { type, counterpart in
            let name = type.qualifiedName
            compareBaseTypes(type.baseType, counterpart.baseType, of: name, into: &result)
            let oldKey = old.key(of: type).map(\.name), newKey = new.key(of: counterpart).map(\.name)
            if oldKey != newKey {
                result.append(ModelDifference(kind: .keyChanged, type: name, old: oldKey.joined(separator: ","),
                                              new: newKey.joined(separator: ","), impact: .needsData))
            }
            compareProperties(type.properties, counterpart.properties, of: name, into: &result)
            compareNavigations(type.navigationProperties, counterpart.navigationProperties, of: name, into: &result)
        }, added: { type in
            result.append(ModelDifference(kind: .entityTypeAdded, type: type.qualifiedName, impact: .compatible))
        })
    }

    private static func compareComplexTypes(_ old: MetadataModel, _ new: MetadataModel, into result: inout [ModelDifference]) {
        pair(old.schemas.flatMap(\.complexTypes), new.schemas.flatMap(\.complexTypes), by: \.qualifiedName, removed: { type in
            result.append(ModelDifference(kind: .complexTypeRemoved, type: type.qualifiedName, impact: .needsData))
        }, matched: { type, counterpart in
            compareBaseTypes(type.baseType, counterpart.baseType, of: type.qualifiedName, into: &result)
            compareProperties(type.properties, counterpart.properties, of: type.qualifiedName, into: &result)
            compareNavigations(type.navigationProperties, counterpart.navigationProperties, of: type.qualifiedName, into: &result)
        }, added: { type in
            result.append(ModelDifference(kind: .complexTypeAdded, type: type.qualifiedName, impact: .compatible))
        })
    }

    private static func compareBaseTypes(_ old: String?, _ new: String?, of type: String, into result: inout [ModelDifference]) {
        if old != new {
            result.append(ModelDifference(kind: .baseTypeChanged, type: type, old: old, new: new, impact: .needsData))
        }
    }

    /// Enum types by name; a changed member list is a type change of the enum (values stored as
    /// member names may no longer mean anything).
    private static func compareEnumTypes(_ old: MetadataModel, _ new: MetadataModel, into result: inout [ModelDifference]) {
        pair(old.schemas.flatMap(\.enumTypes), new.schemas.flatMap(\.enumTypes), by: \.qualifiedName, removed: { type in
            result.append(ModelDifference(kind: .enumTypeRemoved, type: type.qualifiedName, impact: .needsData))
        }, matched: { type, counterpart in
            let oldMembers = type.members.map(\.name), newMembers = counterpart.members.map(\.name)
            if oldMembers != newMembers || type.underlyingType != counterpart.underlyingType || type.isFlags != counterpart.isFlags {
                // Members only added at the end keep every stored value's meaning.
                let onlyAdded = newMembers.starts(with: oldMembers) && type.underlyingType == counterpart.underlyingType
                    && type.isFlags == counterpart.isFlags
                result.append(ModelDifference(kind: .propertyTypeChanged, type: type.qualifiedName,
                                              old: oldMembers.joined(separator: ","), new: newMembers.joined(separator: ","),
                                              impact: onlyAdded ? .compatible : .needsData))
            }
        }, added: { type in
            result.append(ModelDifference(kind: .enumTypeAdded, type: type.qualifiedName, impact: .compatible))
        })
    }

    /// V4 functions and actions by qualified name, all overloads' signatures together.
    private static func compareOperations(_ old: MetadataModel, _ new: MetadataModel, into result: inout [ModelDifference]) {
        func signatures(_ model: MetadataModel) -> [(name: String, signature: String)] {
            grouped(model.schemas.flatMap(\.operations).map { operation in
                let parameters = operation.parameters.map { "\($0.name): \($0.type)" }.joined(separator: ", ")
                var signature = "\(operation.kind.rawValue)\(operation.isBound ? " bound" : "")(\(parameters))"
                if let returnType = operation.returnType { signature += " -> \(returnType.type)" }
                return (operation.qualifiedName, signature)
            })
        }
        compareSignatures(signatures(old), signatures(new), kinds: (.operationRemoved, .operationChanged, .operationAdded), into: &result)
    }

    // MARK: Members

    private static func compareProperties(_ old: [Property], _ new: [Property], of type: String,
                                          into result: inout [ModelDifference]) {
        pair(old, new, by: \.name, removed: { property in
            result.append(ModelDifference(kind: .propertyRemoved, type: type, member: property.name,
                                          old: property.type.description, impact: .needsData))
        }, matched: { property, counterpart in
            compare(property, counterpart, of: type, into: &result)
        }, added: { property in
            // Rows already stored have no value for it: fine when it may be null or has a default.
            let fits = property.isNullable || property.facets.defaultValue != nil
            result.append(ModelDifference(kind: .propertyAdded, type: type, member: property.name,
                                          new: property.type.description + (property.isNullable ? "" : " not null"),
                                          impact: fits ? .compatible : .needsData))
        })
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
        pair(old, new, by: \.name, removed: { navigation in
            result.append(ModelDifference(kind: .navigationRemoved, type: type, member: navigation.name,
                                          old: navigation.type.description, impact: .compatible))
        }, matched: { navigation, counterpart in
            let before = "\(navigation.type) \(navigation.multiplicity.rawValue)"
            let after = "\(counterpart.type) \(counterpart.multiplicity.rawValue)"
            let constraints = { (n: NavigationProperty) in n.referentialConstraints.map { "\($0.property)=\($0.referencedProperty)" } }
            if before != after || constraints(navigation) != constraints(counterpart) {
                result.append(ModelDifference(kind: .navigationChanged, type: type, member: navigation.name, old: before, new: after,
                                              impact: .needsData))
            }
        }, added: { navigation in
            result.append(ModelDifference(kind: .navigationAdded, type: type, member: navigation.name,
                                          new: navigation.type.description, impact: .compatible))
        })
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
