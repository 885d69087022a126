/// The related entities of one expanded navigation, already written as JSON: one array (to-many)
/// or object (to-one) per parent, side by side in one buffer, found by the parent's `_ood_id`.
struct ExpandedEntities {
    let name: String
    let key: JSONWriter.EncodedKey
    let countKey: JSONWriter.EncodedKey
    let isCollection: Bool
    var buffer: [UInt8] = []
    var ranges: [Int64: Range<Int>] = [:]
    /// `$expand=Nav($count=true)` (V4): the number of related entities per parent before the
    /// expand's `$top`/`$skip`, written as `Nav@odata.count` (absent parents: 0); nil otherwise.
    var counts: [Int64: Int64]?

    init(name: String, isCollection: Bool) {
        self.name = name
        self.key = JSONWriter.EncodedKey(name)
        self.countKey = JSONWriter.EncodedKey(name + "@odata.count")
        self.isCollection = isCollection
    }

    /// Writes the parent's related entities, or `[]`/`null` when it has none, after their count
    /// when one was asked for. V2 wraps collections as `{"results": [...]}`.
    func write(forParent id: Int64, dialect: Dialect, to writer: inout JSONWriter) {
        if let counts, isCollection, dialect == .v4 {
            writer.writeKey(countKey)
            writer.writeNumber(counts[id] ?? 0)
        }
        writer.writeKey(key)
        if isCollection && dialect == .v2 {
            writer.beginObject()
            writer.writeKey(EntityRowWriter.resultsKey)
        }
        if let range = ranges[id] {
            buffer.withUnsafeBytes { writer.writeRaw(UnsafeRawBufferPointer(rebasing: $0[range])) }
        } else if isCollection {
            writer.beginArray()
            writer.endArray()
        } else {
            writer.writeNull()
        }
        if isCollection && dialect == .v2 { writer.endObject() }
    }
}
