extension HandOverOutcome {
    /// As JSON for the C, Python and tool surfaces: `{"previousUser":S or null,"newUser":S,
    /// "uploaded":N,"discarded":N,"keptAt":S or null}`.
    public var jsonText: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.writeKey("previousUser")
        if let previousUser { writer.writeString(previousUser) } else { writer.writeNull() }
        writer.writeKey("newUser"); writer.writeString(newUser)
        writer.writeKey("uploaded"); writer.writeNumber(uploaded)
        writer.writeKey("discarded"); writer.writeNumber(discarded)
        writer.writeKey("keptAt")
        if let keptAt { writer.writeString(keptAt) } else { writer.writeNull() }
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
