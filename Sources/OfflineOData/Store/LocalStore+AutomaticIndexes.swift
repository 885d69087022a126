/// Indexes the engine makes by itself, from the shapes of the reads it answers (``ReadShape``):
/// a list of properties that local reads (and downloads of defining requests) filtered and
/// ordered on ``automaticIndexThreshold`` times gets an index, made outside the request path:
/// after a download, when the store closes, or when the app asks.
extension LocalStore {
    /// Reads of one shape after which it gets an index (10).
    package static let automaticIndexThreshold = 10

    /// Writes down the read shapes counted so far and makes an index for each shape seen at least
    /// `threshold` times that no index serves yet (none whose leading properties are the
    /// shape's). Returns the indexes made, which status lists as automatic with the reason.
    /// Takes the write lock while it makes them (reads go on; a write waits).
    @discardableResult
    package func createAutomaticIndexes(threshold: Int = LocalStore.automaticIndexThreshold) throws(ODataError) -> [StoreIndex] {
        guard threshold >= 1 else { throw ODataError(.misuse, "the threshold of automatic indexes must be at least 1, not \(threshold)") }
        try saveReadShapes()
        let (candidates, existing) = try file.withConnection { db throws(ODataError) in
            (try ReadShapeTable.candidates(threshold: threshold, in: db), try IndexTable.all(in: db))
        }
        var made: [ResolvedIndex] = []
        var reads: [String: Int] = [:]
        for candidate in candidates {
            let shape = candidate.shape
            let served = existing.contains { $0.entitySet == shape.entitySet && $0.properties.starts(with: shape.properties) }
                || made.contains { $0.declaration.entitySet == shape.entitySet && $0.declaration.properties.starts(with: shape.properties) }
            guard !served else { continue }
            // A shape whose model changed since it was counted no longer resolves: it is skipped.
            guard let index = try? IndexDeclaration(entitySet: shape.entitySet, properties: shape.properties).resolved(in: schema) else { continue }
            made.append(index)
            reads[index.name] = candidate.reads
        }
        guard !made.isEmpty else { return [] }
        try make(made, origin: .automatic) { index in
            "reads filtered or ordered on \(index.declaration.properties.joined(separator: ", ")) \(reads[index.name] ?? threshold) times"
        }
        let names = Set(made.map(\.name))
        return try indexes().filter { names.contains($0.name) }
    }

    /// Adds the shapes counted in memory to the store's counts (``ReadShapeTable``).
    func saveReadShapes() throws(ODataError) {
        let counts = readShapes.take()
        guard !counts.isEmpty else { return }
        do {
            try file.withConnection { db throws(ODataError) in
                try db.transaction { () throws(ODataError) in try ReadShapeTable.add(counts, in: db) }
            }
        } catch {
            readShapes.restore(counts)
            throw error
        }
    }

    /// Counts the shape of a defining request's filter and order, once per download.
    func recordDefiningRequestShape(_ url: String) {
        guard let request = try? withBindingReader({ reader throws(ODataError) in try reader.bind(url: url) }) else { return }
        readShapes.record(request, schema: schema)
    }
}
