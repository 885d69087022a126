/// The error archive's other action: sending an archived request again.
extension LocalStore {
    /// Moves the archived request `id` back into the request queue, at its place in upload order
    /// (before the requests queued after it), with the later archived requests on its entity (they
    /// were archived because of it); the next upload sends them. A requeued ``ArchiveKind/inDoubt``
    /// create is sent again: the user decided the service does not have it.
    ///
    /// With `body`, the request's body is replaced first. It is checked against the model as a
    /// local write's body is, and the entity's row takes its values (for a PUT, what it leaves out
    /// becomes null), so the store shows what will be sent. The entity is no longer marked in
    /// error once it has no archived request left, and it has pending changes again.
    ///
    /// - Returns: how many requests went back to the queue.
    /// - Throws: ``ODataError/Code/notFound`` when the archive has no request `id`;
    ///   ``ODataError/Code/syntax``, ``ODataError/Code/semantic`` or ``ODataError/Code/constraint``
    ///   for a body the model refuses (nothing changes then); ``ODataError/Code/misuse`` for a body
    ///   given to a DELETE.
    @discardableResult
    package func requeueArchivedRequest(id: Int64, body: String? = nil) throws(ODataError) -> Int {
        let actions = ErrorArchiveActions(schema: schema, dialect: dialect)
        return try file.withConnection { db throws(ODataError) in try actions.requeue(id: id, body: body, on: db) }
    }
}
