/// An entity type held by reference. ``EntityType`` is a struct with about a dozen
/// reference-counted fields, so every copy costs that many retains and releases; the expression
/// binder's range variables and path walks pass this box instead, which costs one.
final class EntityTypeReference {
    let type: EntityType

    init(_ type: EntityType) { self.type = type }
}
