extension MetadataModel {
    /// The term by which a model names other keys of an entity (OData Core vocabulary).
    static let alternateKeysTerm = "Org.OData.Core.V1.AlternateKeys"

    /// The alternate keys the model declares for the entities of `entitySet`, each a list of
    /// property paths: `Core.AlternateKeys` on the entity set, or on its entity type, inline or in
    /// an `Annotations` block (the set's own annotation first). Empty when there are none. The
    /// upload reads a create in doubt back by one of them (``InDoubtReconciler``).
    public func alternateKeys(entitySet name: String) -> [[String]] {
        guard let container = entityContainer, let set = container.entitySet(named: name) else { return [] }
        let setTarget = container.qualifiedName + "/" + name
        let typeName = qualifiedName(set.entityType)
        let candidates: [[Annotation]] = [set.annotations]
            + annotationGroups(targeting: setTarget).map(\.annotations)
            + [entityType(named: typeName)?.annotations ?? []]
            + annotationGroups(targeting: typeName).map(\.annotations)
        for annotations in candidates {
            guard let annotation = annotations.first(where: {
                $0.qualifier == nil && qualifiedName($0.term) == Self.alternateKeysTerm
            }), let value = annotation.value else { continue }
            let keys = Self.alternateKeys(in: value)
            if !keys.isEmpty { return keys }
        }
        return []
    }

    /// `<Collection><Record><PropertyValue Property="Key"><Collection><Record>
    /// <PropertyValue Property="Name" PropertyPath="p"/>…`: the property paths of each key record.
    private static func alternateKeys(in collection: AnnotationExpression) -> [[String]] {
        guard collection.kind == "Collection" else { return [] }
        return collection.children.compactMap { record -> [String]? in
            guard record.kind == "Record",
                  let key = record.children.first(where: { $0.kind == "PropertyValue" && $0.attribute("Property") == "Key" }),
                  let references = key.children.first(where: { $0.kind == "Collection" }) else { return nil }
            let paths = references.children.compactMap { reference -> String? in
                guard let name = reference.children.first(where: { $0.kind == "PropertyValue" && $0.attribute("Property") == "Name" })
                else { return nil }
                return name.attribute("PropertyPath") ?? name.children.first(where: { $0.kind == "PropertyPath" })?.value
            }
            // A key with a part that names nothing is not a key the engine can read by.
            return paths.isEmpty || paths.count != references.children.count ? nil : paths
        }
    }
}

extension AnnotationExpression {
    /// The value of the attribute `name` (no namespace), if present.
    func attribute(_ name: String) -> String? {
        attributes.first { $0.namespace.isEmpty && $0.name == name }?.value
    }
}
