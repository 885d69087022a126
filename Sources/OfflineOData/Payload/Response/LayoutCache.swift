/// Entity layouts kept across reads (keys escaped, forms decided), by entity set, concrete type,
/// column offset and selection: building one costs more than writing twenty entities.
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
