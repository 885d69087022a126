extension UploadPreview {
    /// `{"batch","steps":[{"kind","requestIDs","note","request":{"method","url","headers":[{"name","value","shown"}],"body"}|null,
    /// "changeSets":[[id,...],...]}]}`; "shown" is "exact", "masked" or "placeholder". The tool's
    /// `upload --dry-run --json`, C's `ood_upload_preview` and Python's `preview_upload` read it.
    @_spi(Tool) public var jsonText: String {
        var writer = JSONWriter()
        write(to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @_spi(Tool) public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.writeKey("batch"); writer.writeBool(batch)
        writer.writeKey("steps")
        writer.beginArray()
        for step in steps {
            writer.beginObject()
            writer.writeKey("kind"); writer.writeString(step.kind.rawValue)
            writer.writeKey("requestIDs"); Self.write(step.requestIDs, to: &writer)
            writer.writeKey("note"); writer.writeString(step.note)
            writer.writeKey("request")
            if let request = step.request { Self.write(request, to: &writer) } else { writer.writeNull() }
            writer.writeKey("changeSets")
            writer.beginArray()
            for changeSet in step.changeSets { Self.write(changeSet, to: &writer) }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }

    private static func write(_ ids: [Int64], to writer: inout JSONWriter) {
        writer.beginArray()
        for id in ids { writer.writeNumber(id) }
        writer.endArray()
    }

    private static func write(_ request: PreviewRequest, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.writeKey("method"); writer.writeString(request.method)
        writer.writeKey("url"); writer.writeString(request.url)
        writer.writeKey("headers")
        writer.beginArray()
        for header in request.headers {
            writer.beginObject()
            writer.writeKey("name"); writer.writeString(header.name)
            writer.writeKey("value"); writer.writeString(header.value)
            writer.writeKey("shown"); writer.writeString(header.shown.rawValue)
            writer.endObject()
        }
        writer.endArray()
        writer.writeKey("body"); request.body.map { writer.writeString($0) } ?? writer.writeNull()
        writer.endObject()
    }
}
