// What only the command-line tool uses, through `@_spi(Tool) import OfflineOData`: the same names
// are refused to a plain import (Tests/packaging/test_public_surface.py).
@_spi(Tool) import OfflineOData

func useTheToolSPI(metadata: String) throws(ODataError) {
    let model = try MetadataReader.read(metadata, options: MetadataReader.Options(isStrict: true))
    let syntax = try ODataURLParser(dialect: .v4).parse("TravelagencyCollection?$top=1")
    let bound: BoundRequest = try ODataBinder(model: model, dialect: .v4).bind(syntax)
    _ = bound.jsonDescription()
    let store = try LocalStore.open(path: "tool.store")
    defer { store.close() }
    _ = (store.schema.tables.map(\.entitySet), try store.file.formatVersion(), try store.file.check(quick: true))
    var writer = JSONWriter()
    writer.beginObject(); writer.writeKey("queued"); writer.writeNumber(try store.file.queuedRequests().count); writer.endObject()
    _ = (writer.bytes, StoreFinding.jsonText([]))
}
