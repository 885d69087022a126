/// Entity layouts kept across reads (keys escaped, forms decided), by entity set, concrete type,
/// column offset and selection: building one costs more than writing twenty entities.
///
/// A read kept by ``ReadPlanCache`` keeps its own base layout in a ``KeptLayout`` instead, found
/// without building this cache's key.
final class LayoutCache {
    private var layouts: [String: EntityLayout] = [:]
    private let capacity = 256

    func layout(_ key: String, make: () -> EntityLayout) -> EntityLayout {
        if let known = layouts[key] { return known }
        let layout = make()
        if layouts.count >= capacity { layouts.removeAll() }
        layouts[key] = layout
        return layout
    }
}

/// The layout of the set's own type for one kept read's main statement, made by its first answer
/// and used by the next ones (see ``ReadPlanCache``).
final class KeptLayout {
    var layout: EntityLayout?
}
