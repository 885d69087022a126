extension DownloadOutcome {
    /// The outcomes of one download, one per defining request, as the tool's `download --json` and
    /// C's `ood_download_json` give them (one writer, so the surfaces cannot drift apart):
    /// `{"downloads":[{"definingRequest","entities","pages","bytes","expectedEntities","delta",
    /// "fetchedPages"[,"resumedAtPage"]}]}`, "resumedAtPage" only for a download that resumed.
    @_spi(Tool) public static func jsonText(_ outcomes: [DownloadOutcome]) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.writeKey("downloads")
        writer.beginArray()
        for outcome in outcomes {
            writer.beginObject()
            writer.writeKey("definingRequest"); writer.writeString(outcome.definingRequest)
            writer.writeKey("entities"); writer.writeNumber(outcome.entities)
            writer.writeKey("pages"); writer.writeNumber(outcome.pages)
            writer.writeKey("bytes"); writer.writeNumber(outcome.bytes)
            writer.writeKey("expectedEntities"); outcome.expectedEntities.map { writer.writeNumber($0) } ?? writer.writeNull()
            writer.writeKey("delta"); writer.writeBool(outcome.isDelta)
            writer.writeKey("fetchedPages"); writer.writeNumber(outcome.fetchedPages)
            if let page = outcome.resumedAtPage { writer.writeKey("resumedAtPage"); writer.writeNumber(page) }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
