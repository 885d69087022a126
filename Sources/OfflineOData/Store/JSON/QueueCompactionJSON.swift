extension QueueCompaction {
    /// What the compaction did, as JSON for the C, Python and tool surfaces:
    /// `{"queued":N,"dropped":[ids],"replaced":[{"id":id,"replaces":[ids]}],"cancelled":[{"entitySet","entityID"}]}`,
    /// `queued` being the number of requests left in the queue.
    public var jsonText: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.writeKey("queued"); writer.writeNumber(queue.count)
        writer.writeKey("dropped"); writer.beginArray()
        for id in dropped { writer.writeNumber(id) }
        writer.endArray()
        writer.writeKey("replaced"); writer.beginArray()
        for id in replaced.keys.sorted() {
            writer.beginObject()
            writer.writeKey("id"); writer.writeNumber(id)
            writer.writeKey("replaces"); writer.beginArray()
            for replacedID in replaced[id] ?? [] { writer.writeNumber(replacedID) }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.writeKey("cancelled"); writer.beginArray()
        for entity in cancelled {
            writer.beginObject()
            writer.writeKey("entitySet"); writer.writeString(entity.entitySet)
            writer.writeKey("entityID"); writer.writeNumber(entity.entityID)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
