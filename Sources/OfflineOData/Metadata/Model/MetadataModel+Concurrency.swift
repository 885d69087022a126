extension MetadataModel {
    /// The term by which a V4 service says changes to an entity set need an ETag (Core vocabulary).
    static let optimisticConcurrencyTerm = "Org.OData.Core.V1.OptimisticConcurrency"

    /// Whether the service checks ETags on changes to `entitySet`, so a change sent without
    /// `If-Match` would be refused (428): V4 `Core.OptimisticConcurrency` on the set (inline or in
    /// an `Annotations` block), V2/V3 a property of the set's type with `ConcurrencyMode="Fixed"`.
    public func requiresETag(entitySet name: String) -> Bool {
        if let type = entityType(ofEntitySet: name), properties(of: type).contains(where: \.isConcurrencyToken) { return true }
        guard let container = entityContainer else { return false }
        let inline = container.entitySet(named: name)?.annotations ?? []
        let grouped = annotationGroups(targeting: container.qualifiedName + "/" + name).flatMap(\.annotations)
        return (inline + grouped).contains { $0.qualifier == nil && qualifiedName($0.term) == Self.optimisticConcurrencyTerm }
    }
}
