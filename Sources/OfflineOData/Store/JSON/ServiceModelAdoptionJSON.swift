extension ServiceModelAdoption {
    /// As JSON for the C, Python and tool surfaces: `{"check":{...},"archived":N,"adopted":B,
    /// "uploaded":{"sent","archived"} or null,"downloads":N}` (the check as ``ServiceModelCheck/jsonText``).
    public var jsonText: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.writeKey("check"); writer.writeValue((try? JSONValue.parse(check.jsonText)) ?? .null)
        writer.writeKey("archived"); writer.writeNumber(archived)
        writer.writeKey("adopted"); writer.writeBool(adopted)
        writer.writeKey("uploaded")
        if let upload {
            writer.beginObject()
            writer.writeKey("sent"); writer.writeNumber(upload.sent)
            writer.writeKey("archived"); writer.writeNumber(upload.archived)
            writer.endObject()
        } else {
            writer.writeNull()
        }
        writer.writeKey("downloads"); writer.writeNumber(downloads.count)
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
