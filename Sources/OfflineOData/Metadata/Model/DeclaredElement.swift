/// What a qualified name declares, and where the element sits: the index of its schema in
/// ``MetadataModel/schemas`` and its index in that schema's array of its kind.
///
/// Validation builds the table of declared names (it rejects a name declared twice); the model
/// keeps it to look names up, instead of building a dictionary of copies per kind again.
enum DeclaredElement: Sendable {
    case entityType(schema: Int, index: Int)
    case complexType(schema: Int, index: Int)
    case enumType(schema: Int, index: Int)
    case typeDefinition(schema: Int, index: Int)
    case term(schema: Int, index: Int)
    case entityContainer(schema: Int, index: Int)
    case association(schema: Int, index: Int)

    enum Kind: Sendable {
        case entityType, complexType, enumType, typeDefinition, term, entityContainer, association
    }

    var kind: Kind {
        switch self {
        case .entityType: .entityType
        case .complexType: .complexType
        case .enumType: .enumType
        case .typeDefinition: .typeDefinition
        case .term: .term
        case .entityContainer: .entityContainer
        case .association: .association
        }
    }

    /// The schema's index and the element's index in that schema's array of its kind.
    var place: (schema: Int, index: Int) {
        switch self {
        case .entityType(let schema, let index), .complexType(let schema, let index), .enumType(let schema, let index),
             .typeDefinition(let schema, let index), .term(let schema, let index), .entityContainer(let schema, let index),
             .association(let schema, let index):
            (schema, index)
        }
    }
}
