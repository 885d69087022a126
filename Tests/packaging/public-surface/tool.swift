// What only the command-line tool uses, through `@_spi(Tool) import OfflineOData`: the same names
// are refused to a plain import (Tests/packaging/test_public_surface.py).
@_spi(Tool) import OfflineOData

func useTheToolSPI(metadata: String) throws(ODataError) {
    let model = try MetadataReader.read(metadata, options: MetadataReader.Options(isStrict: true))
    let syntax = try ODataURLParser(dialect: .v4).parse("TravelagencyCollection?$top=1")
    let bound: BoundRequest = try ODataBinder(model: model, dialect: .v4).bind(syntax)
    _ = bound.jsonDescription()
    var options = ODataStore.Options(path: "tool.store")
    options.creation = .openExisting
    let store = ODataStore.open(options)
    defer { store.close() }
    let description: StoreDescription = try store.performAndWait(.describe)
    _ = (description.entitySets, description.formatVersion, try store.performAndWait(.checkStore(quick: true)))
    _ = try store.performAndWait(.load(definingRequest: "Agencies", fullRefresh: true) { () throws(ODataError) -> [UInt8]? in nil })
    var writer = JSONWriter()
    writer.beginObject(); writer.writeKey("queued"); writer.writeNumber(try store.performAndWait(.requestQueue).count); writer.endObject()
    _ = (writer.bytes, StoreFinding.jsonText([]))
}
