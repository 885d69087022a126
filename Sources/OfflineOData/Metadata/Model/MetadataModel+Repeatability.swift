extension MetadataModel {
    /// The term by which a service declares repeatable requests (OData Repeatability vocabulary).
    static let repeatabilitySupportedTerm = "Org.OData.Repeatability.V1.Supported"

    /// Whether the service takes repeatable requests (`Repeatability-Request-ID`) for changes to
    /// `entitySet`: `Repeatability.Supported` on the entity set, inline or in an `Annotations`
    /// block, else on the entity container. The set's own annotation wins (the vocabulary says
    /// so), and `Bool="false"` turns it off.
    public func supportsRepeatableRequests(entitySet name: String) -> Bool {
        guard let container = entityContainer else { return false }
        let setTarget = container.qualifiedName + "/" + name
        if let set = container.entitySet(named: name), let tag = repeatabilityTag(in: set.annotations) { return tag }
        if let tag = repeatabilityTag(inGroupsTargeting: setTarget) { return tag }
        if let tag = repeatabilityTag(in: container.annotations) { return tag }
        return repeatabilityTag(inGroupsTargeting: container.qualifiedName) ?? false
    }

    /// The value of an unqualified `Repeatability.Supported` among `annotations`; nil when absent.
    private func repeatabilityTag(in annotations: [Annotation]) -> Bool? {
        guard let annotation = annotations.first(where: {
            $0.qualifier == nil && qualifiedName($0.term) == Self.repeatabilitySupportedTerm
        }) else { return nil }
        // A Tag with no value is true; otherwise `Bool="true"` / `<Bool>false</Bool>`.
        guard let value = annotation.value, value.kind == "Bool" else { return true }
        return value.value?.lowercased() != "false"
    }

    /// The tag in out-of-line `<Annotations Target="...">` blocks for `target` (aliases resolved).
    private func repeatabilityTag(inGroupsTargeting target: String) -> Bool? {
        for group in annotationGroups(targeting: target) {
            if let tag = repeatabilityTag(in: group.annotations) { return tag }
        }
        return nil
    }

    /// The unqualified out-of-line `<Annotations Target="...">` blocks for `target`.
    func annotationGroups(targeting target: String) -> [AnnotationGroup] {
        schemas.flatMap { schema in
            schema.annotationGroups.filter { $0.qualifier == nil && resolvedTarget($0.target) == target }
        }
    }

    /// `Alias.Container/Set` with its alias replaced by the namespace.
    func resolvedTarget(_ target: String) -> String {
        guard let slash = target.firstIndex(of: "/") else { return qualifiedName(target) }
        return qualifiedName(String(target[..<slash])) + String(target[slash...])
    }
}
