internal import CSQLite

/// Loads the pages of one download of one defining request into the store's tables, inside one
/// SQLite transaction, so a download that fails part-way leaves the previous data whole.
///
/// ```swift
/// let session = try IngestSession(definingRequest: request, model: model, schema: schema,
///                                 dialect: .v4, db: db)
/// try session.begin()
/// do {
///     var link: String? = firstURL
///     while let url = link { link = try session.ingest(page: fetch(url)).nextLink }
///     try session.finish(fullRefresh: true)
///     try session.commit()
/// } catch { session.rollback(); throw error }
/// ```
/// or ``run(definingRequest:model:schema:dialect:db:fullRefresh:_:)`` with a closure.
///
/// What it does with each entity (``ingest(page:)``): upsert by key into its entity set's table,
/// writing only the properties the payload has; record that the defining request holds it
/// (`ood_membership`); for expanded navigations without referential constraint, record the
/// relation in `ood_link`. An entity with a pending local change keeps its local values; only
/// its ETag and type are refreshed. ``finish(fullRefresh:)`` then removes what a full download no
/// longer returned. Errors: a malformed page is ``ODataError/Code/syntax`` with the byte offset; a
/// value that does not fit its column names the entity set, the property and the value. After an
/// error the session refuses further pages and commits: the caller rolls back.
///
/// Decisions:
/// - Pending local changes win: the upsert only overwrites columns of rows whose `_ood_change` is
///   NULL. The ETag is still refreshed, because the upload sends the ETag the entity had when it
///   was changed (kept in the request queue), so a conflict is still detected by the service.
/// - Only what the payload has is written: a `$select` page never nulls other columns; a null
///   complex value nulls all its leaf columns; `_ood_etag`/`_ood_type` only change when given.
/// - `_ood_type` holds the qualified type of a derived type, NULL for the set's own type.
/// - Links (`ood_link`) are kept for expanded navigations without referential constraint on
///   either side (``NavigationLinks``). A complete expanded list replaces the source's links for
///   that navigation (also when the source has a pending change); a partial one (a nested next
///   link, V2 `__next` inside the expansion) only adds. Nested next links are not followed.
/// - Navigations the defining request did not expand are skipped even when the payload has them;
///   so are unknown properties and annotations.
/// - Delta pages: changed entities are upserted like any other, even when they lie outside the
///   defining request's `$filter` (odatapy sends such rows; the store cannot evaluate the filter
///   here): the next full refresh removes them. `$link`/`$deletedLink` entries are skipped.
/// - An entity without its key properties takes its key from its id (`@odata.id`, `@id`,
///   `__metadata.uri`), as delta entries often have only that.
///
/// Not thread-safe: one thread reads and writes each page (a download fetches the next page's
/// bytes on another while this one is ingested, see ``PageFetcher``).
final class IngestSession {
    let definingRequest: DefiningRequest
    let target: DefiningRequestTarget
    let model: MetadataModel
    let schema: StoreSchema
    let dialect: Dialect
    let db: SQLiteConnection

    /// The plans of every set the defining request reaches, made once.
    let plans: [String: TablePlan]
    /// Whether new rows of tables that held nothing are inserted in batches (``FreshRows``):
    /// only without `$expand`, where no entity's id is needed before its batch is written.
    let batchesFreshRows: Bool
    /// The batched rows not inserted yet; written before anything else touches the tables.
    let freshRows = FreshRows()
    private var membershipInsert: Statement?
    private var plansWithPendingMemberships: [TablePlan] = []
    /// Whether the defining request held any entity before this session wrote its first page; nil
    /// before that. When it held none, a full refresh has nothing to remove: every membership it
    /// has then is one this session wrote (``EntityRemoval/removeUnseenMemberships()``).
    private(set) var heldEntitiesBefore: Bool?
    private var ownsTransaction = false
    /// The record of this session's write transaction, while it is open.
    private var holder: WriteHolder?
    private var failed = false

    private var statements: [String: Statement] = [:]

    /// Whether memberships are written (``addMembership(_:entityID:)``): not while the entities
    /// go to a staging table, whose ids are not the store's yet (the swap writes them).
    let recordsMemberships: Bool

    /// Resolves the defining request's URL against the model. `replacements` names, per entity
    /// set, a table to write instead of the set's own (a download's staging table, same columns);
    /// with any, no membership is written.
    ///
    /// - Throws: what ``DefiningRequestTarget`` throws (a function import is
    ///   ``ODataError/Code/unsupported``), and ``ODataError/Code/metadata`` when the schema has
    ///   no table for a set the request reaches.
    init(definingRequest: DefiningRequest, model: MetadataModel, schema: StoreSchema, dialect: Dialect,
         db: SQLiteConnection, writingInto replacements: [String: EntitySetTable] = [:]) throws(ODataError) {
        self.definingRequest = definingRequest
        self.model = model
        self.schema = schema
        self.dialect = dialect
        self.db = db
        target = try DefiningRequestTarget(url: definingRequest.url, model: model, dialect: dialect)
        var plans: [String: TablePlan] = [:]
        for entitySet in target.entitySets {
            guard let table = replacements[entitySet] ?? schema.table(forEntitySet: entitySet) else {
                throw ODataError(.metadata, "the store has no table for entity set '\(entitySet)'")
            }
            plans[entitySet] = try TablePlan(table: table, db: db)
        }
        for (entitySet, plan) in plans {
            plan.streamNames = model.entityType(ofEntitySet: entitySet).map(model.streamNames(of:)) ?? []
        }
        self.plans = plans
        batchesFreshRows = target.root.navigations.isEmpty
        recordsMemberships = replacements.isEmpty
    }

    // MARK: - Transaction

    /// Opens the session's transaction (`BEGIN IMMEDIATE`). Callers that already hold a
    /// transaction on `db` may skip this; ``ingest(page:)`` only requires that one is open.
    func begin() throws(ODataError) {
        try db.beginImmediate()
        ownsTransaction = true
        // A download holds the write lock for long (network time included): a writer that waits
        // for it in vain can then say what holds the store.
        holder = WriteHolder.record("a download of defining request '\(definingRequest.name)'",
                                    databaseFilePath: db.databaseFilePath)
    }

    /// Commits the session's transaction. Refused after a failed page.
    func commit() throws(ODataError) {
        guard !failed else { throw ODataError(.misuse, "a page of defining request '\(definingRequest.name)' failed: roll back instead of committing") }
        try db.execute("COMMIT")
        db.publishCommittedChanges()
        ownsTransaction = false
        holder?.release()
        holder = nil
    }

    /// Rolls back everything the session wrote; the previous data stays whole.
    func rollback() {
        if ownsTransaction || isInTransaction { try? db.execute("ROLLBACK") }
        ownsTransaction = false
        holder?.release()
        holder = nil
    }

    /// Runs `body` with a session inside one transaction, then ``finish(fullRefresh:)`` and commit;
    /// any error rolls everything back and is rethrown.
    static func run<T>(definingRequest: DefiningRequest, model: MetadataModel, schema: StoreSchema, dialect: Dialect,
                       db: SQLiteConnection, fullRefresh: Bool,
                       _ body: (IngestSession) throws(ODataError) -> T) throws(ODataError) -> T {
        let session = try IngestSession(definingRequest: definingRequest, model: model, schema: schema, dialect: dialect, db: db)
        try session.begin()
        do {
            let result = try body(session)
            try session.finish(fullRefresh: fullRefresh)
            try session.commit()
            return result
        } catch {
            session.rollback()
            throw error
        }
    }

    private var isInTransaction: Bool {
        guard let handle = db.handle else { return false }
        return sqlite3_get_autocommit(handle) == 0
    }

    // MARK: - Pages

    /// Reads one page (V4 or V2 JSON, a collection, a single entity or a delta) and writes its
    /// entities, each as soon as it is read (``PageReader``): the page costs its bytes and one
    /// entity's buffers, whatever its length.
    func ingest(page bytes: [UInt8]) throws(ODataError) -> PageSummary {
        try ingest(page: JSONReader(bytes: bytes))
    }

    /// Reads the page `reader` is over and writes its entities, as ``ingest(page:)-([UInt8])``.
    func ingest(page reader: consuming JSONReader) throws(ODataError) -> PageSummary {
        try checkUsable()
        do {
            if heldEntitiesBefore == nil {
                heldEntitiesBefore = try db.scalarInt("SELECT EXISTS (SELECT 1 FROM ood_membership WHERE defining_request = ?1)",
                                                      [.text(definingRequest.name)]) == 1
            }
            var reader = reader
            var pageReader = PageReader(session: self)
            let summary = try pageReader.readPage(&reader)
            try flushMemberships()
            return summary
        } catch {
            failed = true
            throw error
        }
    }

    /// Ends the download: after a full (non-delta) download, the defining request's memberships
    /// this session did not write are removed, and entities left with no membership and no pending
    /// local change are deleted with their links. A delta download changes nothing here (its
    /// removals were applied page by page).
    func finish(fullRefresh: Bool) throws(ODataError) {
        try checkUsable()
        guard fullRefresh else { return }
        do {
            try EntityRemoval(session: self).removeUnseenMemberships()
        } catch {
            failed = true
            throw error
        }
    }

    private func checkUsable() throws(ODataError) {
        guard !failed else { throw ODataError(.misuse, "a page of defining request '\(definingRequest.name)' failed: roll back the session") }
        guard isInTransaction else {
            throw ODataError(.misuse, "ingest needs an open transaction: call begin() first")
        }
    }

    // MARK: - Shared state

    /// The plan of an entity set's table (every set the defining request reaches has one).
    func plan(forEntitySet name: String) throws(ODataError) -> TablePlan {
        guard let plan = plans[name] else {
            throw ODataError(.internalError, "entity set '\(name)' is not reached by defining request '\(definingRequest.name)'")
        }
        return plan
    }

    /// A statement prepared once per session.
    func statement(_ sql: String) throws(ODataError) -> Statement {
        if let statement = statements[sql] { return statement }
        let statement = try db.prepare(sql)
        statements[sql] = statement
        return statement
    }

    /// Records that this defining request holds the entity. The `ood_membership` rows are written
    /// in one statement per table and page (``flushMemberships()``): a statement per entity cost
    /// a fifth of the ingest time.
    func addMembership(_ plan: TablePlan, entityID: Int64) throws(ODataError) {
        guard recordsMemberships, plan.seen.insert(entityID) else { return }
        plan.pendingMemberships.append(entityID)
        if plan.pendingMemberships.count == 1 { plansWithPendingMemberships.append(plan) }
    }

    /// Writes the memberships collected so far. Runs at the end of each page and before any
    /// removal, so a removal always sees the memberships of the entities written before it.
    func flushMemberships() throws(ODataError) {
        try flushFreshRows()
        pendingMembershipCount = 0
        guard !plansWithPendingMemberships.isEmpty else { return }
        let insert: Statement
        if let membershipInsert {
            insert = membershipInsert
        } else {
            insert = try db.prepare("""
                INSERT OR IGNORE INTO ood_membership (entity_set, entity_id, defining_request)
                SELECT ?1, value, ?2 FROM json_each(?3)
                """)
            membershipInsert = insert
        }
        for plan in plansWithPendingMemberships where !plan.pendingMemberships.isEmpty {
            try insert.run([.text(plan.table.entitySet), .text(definingRequest.name), .text(Self.jsonList(plan.pendingMemberships))])
            plan.pendingMemberships.removeAll(keepingCapacity: true)
        }
        plansWithPendingMemberships.removeAll()
    }

    /// Writes the memberships collected so far once they are many, so a long page's ids are not
    /// all held until its end (memory stays bounded whatever the page's length).
    func flushMembershipsWhenMany() throws(ODataError) {
        pendingMembershipCount += 1
        guard pendingMembershipCount >= Self.membershipsPerFlush else { return }
        try flushMemberships()
    }

    /// How many written entities ``flushMembershipsWhenMany()`` lets pass between flushes.
    static let membershipsPerFlush = 4096
    private var pendingMembershipCount = 0

    /// Inserts the batched new rows (``FreshRows``), recording their memberships.
    func flushFreshRows() throws(ODataError) {
        guard !freshRows.isEmpty else { return }
        try freshRows.flush(session: self)
    }

    /// `[1,2,3]`: the ids as a JSON array, written by ``JSONWriter`` (a String per id cost a
    /// sixth of the membership insert).
    static func jsonList(_ ids: [Int64]) -> String {
        var writer = JSONWriter(capacity: ids.count * 8 + 2)
        writer.beginArray()
        for id in ids { writer.writeNumber(id) }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The ids this session wrote into `entitySet`.
    func seenIDs(in entitySet: String) -> EntityIDSet? { plans[entitySet]?.seen }
}
