/// The `ood_read_shape` table: how often reads (local ones, and the downloads of defining
/// requests) filtered and ordered on each list of properties of an entity set, kept across
/// sessions so that a shape repeated by short-lived processes (the tool) still counts.
enum ReadShapeTable {
    /// Adds `counts` to the stored ones.
    static func add(_ counts: [ReadShape: Int], in db: SQLiteConnection) throws(ODataError) {
        guard !counts.isEmpty else { return }
        let statement = try db.prepare(
            "INSERT INTO ood_read_shape (entity_set, properties, reads) VALUES (?1, ?2, ?3) "
            + "ON CONFLICT (entity_set, properties) DO UPDATE SET reads = reads + excluded.reads")
        for (shape, count) in counts {
            try statement.run([.text(shape.entitySet), .text(shape.properties.joined(separator: ",")), .integer(Int64(count))])
        }
    }

    /// The shapes seen at least `threshold` times that no index covers yet, with their counts.
    static func candidates(threshold: Int, in db: SQLiteConnection) throws(ODataError) -> [(shape: ReadShape, reads: Int)] {
        let statement = try db.prepare(
            "SELECT s.entity_set, s.properties, s.reads FROM ood_read_shape AS s WHERE s.reads >= ?1 AND NOT EXISTS "
            + "(SELECT 1 FROM ood_index AS i WHERE i.entity_set = s.entity_set AND i.properties = s.properties) "
            + "ORDER BY s.reads DESC, s.entity_set, s.properties")
        try statement.bind([.integer(Int64(threshold))])
        var result: [(shape: ReadShape, reads: Int)] = []
        while try statement.step() {
            let properties = (statement.text(at: 1) ?? "").split(separator: ",").map(String.init)
            result.append((ReadShape(entitySet: statement.text(at: 0) ?? "", properties: properties), Int(statement.int(at: 2))))
        }
        return result
    }
}
