/// The streams of an entity type (issue 35, docs/MEDIA.md): the media entity's own stream
/// (`HasStream`) and its V4 `Edm.Stream` properties, which the store keeps as files, not columns.
extension MetadataModel {
    /// Whether `property` is a single `Edm.Stream` (a stream property; a collection of streams
    /// is not one).
    package func isStreamProperty(_ property: Property) -> Bool {
        guard !property.type.isCollection else { return false }
        switch property.type.kind {
        case .primitive(let primitive), .definition(let primitive): return primitive == .stream
        default: return false
        }
    }

    /// The names of the `Edm.Stream` properties of `type`, inherited ones first.
    package func streamProperties(of type: EntityType) -> [String] {
        typeHierarchy(of: type).reversed().flatMap(\.properties).filter(isStreamProperty).map(\.name)
    }

    /// The streams of an entity of `type`, each named as ``StreamRecord/property`` names it:
    /// `""` for its own (`HasStream`), then its stream properties.
    package func streamNames(of type: EntityType) -> [String] {
        (type.hasStream ? [""] : []) + streamProperties(of: type)
    }
}
