/// Reading one entity from the service again (issue 19): after the user discarded or resolved an
/// archived request, or whenever they want the service's current version of an entity.
extension LocalStore {
    /// Reads the entity `url` addresses by its key (`TravelagencyCollection('00000001')`) from the
    /// service and gives the store the service's version: its values and ETag, with no change or
    /// error mark (``RedownloadOutcome/Action/updated``); or, when the service answers 404, the
    /// entity leaves the store (``RedownloadOutcome/Action/removed``). One transaction, after the
    /// read; the entity keeps its local identity, links and memberships. See ``EntityRedownload``.
    ///
    /// - Throws: ``ODataError/Code/syntax`` or ``ODataError/Code/semantic`` for a URL that does not
    ///   address one entity by its key; ``ODataError/Code/notFound`` when the store does not have
    ///   it; ``ODataError/Code/misuse`` when it has queued or archived requests (upload, discard or
    ///   undo them first: a re-download never drops a change) or the store has no service root;
    ///   ``ODataError/Code/network`` or ``ODataError/Code/http`` when the service did not answer
    ///   with the entity or a 404 (nothing changes then).
    package func redownloadEntity(url: String, cancellation: HTTPCancellation? = nil) throws(ODataError) -> RedownloadOutcome {
        let redownload = EntityRedownload(model: model, schema: schema, dialect: dialect)
        let (table, id) = try file.withConnection { db throws(ODataError) in try redownload.locate(url: url, on: db) }
        let served = try ServedEntity.read(entityID: id, of: table, dialect: dialect, serviceRoot: try requireServiceRoot(),
                                           transport: try serviceTransport(), file: file, cancellation: cancellation)
        return try file.withConnection { db throws(ODataError) in try redownload.apply(served, entityID: id, of: table, on: db) }
    }
}
