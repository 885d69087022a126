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
}
