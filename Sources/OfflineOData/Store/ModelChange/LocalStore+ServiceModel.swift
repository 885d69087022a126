/// The store and its service's current `$metadata`: checking it, and adopting it.
extension LocalStore {
    /// What a check found, with the service's document when it came whole (to adopt it later).
    package struct ServiceModelFindings {
        package var check: ServiceModelCheck
        /// The service's document and its validators; nil when the service answered 304.
        package var document: (text: String, model: MetadataModel, record: ServiceModelRecord)?
        /// Whether the file already keeps the service's document, adopted by another handle (in
        /// this process or another) since this one read the validators: the handle takes the
        /// file's model (``reloadedFromFile()``) instead of migrating again.
        package var isAdoptedInFile = false
    }

    /// Asks the service for its `$metadata` (conditionally where the store can) and compares it
    /// with the store's model; classifies the differences against the queue as it is now.
    ///
    /// The validators of the service's document are kept only once the store's model matches it
    /// (no difference, or after a migration): while a change waits for the app, every check reads
    /// the document again rather than take a 304 for "nothing changed".
    package func checkServiceModel(cancellation: HTTPCancellation?) throws(ODataError) -> ServiceModelFindings {
        let root = try requireServiceRoot()
        let known = try knownServiceModelRecord()
        let answer = try ServiceModelFetch.fetch(serviceRoot: root, transport: try serviceTransport(), known: known,
                                                 cancellation: cancellation)
        guard case .document(let bytes, let record) = answer else {
            return ServiceModelFindings(check: ServiceModelCheck(evidence: .notModified, differences: [], refusedRequests: []))
        }
        if let hash = known.hash, hash == record.hash {
            if record != known, !file.isReadOnly { try file.withConnection { db throws(ODataError) in try record.write(in: db) } }
            serviceModelRecord.withLock { $0 = record }
            return ServiceModelFindings(check: ServiceModelCheck(evidence: .sameHash, differences: [], refusedRequests: []))
        }
        // Another handle on the file may have adopted (or checked) this very document meanwhile.
        let stored = try file.withConnection { db throws(ODataError) in try ServiceModelRecord.read(in: db) }
        if stored != known, let hash = stored.hash, hash == record.hash {
            serviceModelRecord.withLock { $0 = stored }
            var findings = ServiceModelFindings(check: ServiceModelCheck(evidence: .sameHash, differences: [], refusedRequests: []))
            findings.isAdoptedInFile = true
            return findings
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let current: MetadataModel
        do throws(ODataError) {
            current = try MetadataReader.read(bytes)
        } catch {
            throw ServiceModelFailure.unreadable(error)
        }
        var differences = ModelComparison.differences(from: model, to: current)
        let queue = try file.queuedRequests()
        let refused = QueueModelCheck(old: model, new: current, dialect: dialect).refusals(of: queue, differences: &differences)
        let check = ServiceModelCheck(evidence: .compared, differences: differences, refusedRequests: refused)
        // A store opened for reads only checks all the same; it remembers nothing.
        if !file.isReadOnly {
            try file.withConnection { db throws(ODataError) in
                try db.transaction { () throws(ODataError) in
                    if differences.isEmpty { try record.write(in: db) }
                // What `status` shows until the app adopts the model (or the service goes back).
                    try StoreInfoTable.setValue(differences.isEmpty ? nil : check.jsonText, for: Self.pendingModelChangeKey, in: db)
                }
            }
        }
        if differences.isEmpty { serviceModelRecord.withLock { $0 = record } }
        return ServiceModelFindings(check: check, document: (text, current, record))
    }

    /// This store on the model its file keeps now: what another handle adopted since this one
    /// opened (see ``ServiceModelFindings/isAdoptedInFile``).
    func reloadedFromFile() throws(ODataError) -> LocalStore {
        let (text, offsets) = try file.withConnection { db throws(ODataError) in
            (try StoreInfoTable.value("metadata", in: db), try StoreInfoTable.value(StoreSchema.instantOffsetsKey, in: db))
        }
        guard let text else { throw ODataError(.notAStore, "the store file no longer keeps a service model") }
        let model = try MetadataReader.read(text)
        let schema = try StoreSchema(model: model, keepingInstantOffsets: offsets == "1")
        file.invalidateReadAttachments()
        return try adopting(model: model, schema: schema)
    }

    /// The validators last seen: from memory after the first read of the file.
    private func knownServiceModelRecord() throws(ODataError) -> ServiceModelRecord {
        if let cached = serviceModelRecord.withLock({ $0 }) { return cached }
        let stored = try file.withConnection { db throws(ODataError) in try ServiceModelRecord.read(in: db) }
        serviceModelRecord.withLock { $0 = stored }
        return stored
    }

    /// `ood_store_info` key: the last check that found the service's model changed and not
    /// adopted (its JSON), for `status`; absent otherwise.
    static let pendingModelChangeKey = "service_model_change"

    /// The last check that found the service's model changed and not yet adopted, as JSON; nil
    /// when the store's model is the service's as far as it knows.
    package func pendingModelChange() throws(ODataError) -> String? {
        try file.withConnection { db throws(ODataError) in try StoreInfoTable.value(Self.pendingModelChangeKey, in: db) }
    }

    /// Makes `document` the store's model: migrates the tables (``ModelMigration``), keeps the
    /// document and its validators, and, when columns were added or tables rebuilt, drops the
    /// delta links so the next download is a full one and fills them; all in one transaction.
    /// The queue and the error archive are not touched. Returns the store under the new model.
    func adoptModel(_ document: (text: String, model: MetadataModel, record: ServiceModelRecord)) throws(ODataError)
        -> (store: LocalStore, summary: ModelMigration.Summary) {
        let offsets = try file.withConnection { db throws(ODataError) in try StoreInfoTable.value(StoreSchema.instantOffsetsKey, in: db) }
        let newSchema = try StoreSchema(model: document.model, keepingInstantOffsets: offsets == "1")
        try requireDefiningRequests(fit: document.model)
        let migration = ModelMigration(old: schema, new: newSchema)
        try file.requireWritable()
        let summary = try file.withConnection { db throws(ODataError) -> ModelMigration.Summary in
            try db.transaction { () throws(ODataError) -> ModelMigration.Summary in
                let summary = try migration.apply(in: db)
                try StoreInfoTable.setValue(document.text, for: "metadata", in: db)
                try document.record.write(in: db)
                try StoreInfoTable.setValue(nil, for: Self.pendingModelChangeKey, in: db)
                if !summary.addedColumns.isEmpty || !summary.rebuiltTables.isEmpty {
                    try DefiningRequestTable.dropDeltaLinks(in: db)
                }
                return summary
            }
        }
        file.invalidateReadAttachments()
        return (try adopting(model: document.model, schema: newSchema), summary)
    }

    /// Refuses a model that a defining request does not fit (it reads a removed set, filters on a
    /// removed property): the app changes its defining requests first; nothing is changed here.
    func requireDefiningRequests(fit newModel: MetadataModel) throws(ODataError) {
        for request in try definingRequests() {
            do throws(ODataError) {
                try DefiningRequestCheck.check(request, model: newModel, dialect: dialect)
            } catch {
                throw ODataError(.misuse, "the defining request '\(request.name)' does not fit the service's new model "
                                 + "(\(error.message)): change the defining requests first")
            }
        }
    }

    /// Moves the queued requests `ids` to the error archive as ``ArchiveKind/modelChanged``, each
    /// with a message naming what of the new model refuses it; their entities are marked in error,
    /// and fix-and-requeue works on them as on any archived request. Returns how many moved.
    func archiveRefused(_ check: ServiceModelCheck) throws(ODataError) -> Int {
        var reasons: [Int64: [String]] = [:]
        for difference in check.differences {
            for id in difference.queuedRequests { reasons[id, default: []].append(Self.reason(difference)) }
        }
        try file.requireWritable()
        return try file.withConnection { db throws(ODataError) -> Int in
            try db.transaction { () throws(ODataError) -> Int in
                var moved = 0
                for id in check.refusedRequests where try RequestQueueTable.contains(id: id, in: db) {
                    let message = "the service's model changed: " + (reasons[id] ?? ["it refuses this request"]).joined(separator: "; ")
                    let request = try RequestQueueTable.all(in: db).first { $0.id == id }
                    try RequestQueueTable.archive(id: id, httpStatus: nil, message: message, kind: .modelChanged, in: db)
                    if let request, let setName = request.entitySet, let entityID = request.entityID,
                       let table = schema.table(forEntitySet: setName) {
                        try db.prepare("UPDATE \(table.quotedName) SET \"_ood_error\" = 1 WHERE \"_ood_id\" = ?1").run([.integer(entityID)])
                    }
                    moved += 1
                }
                return moved
            }
        }
    }

    /// What a difference refuses, for an archived request's message: `property 'Price' of
    /// 'NS.Order' was removed`.
    static func reason(_ difference: ModelDifference) -> String {
        let subject = difference.member.map { "'\($0)' of '\(difference.type ?? difference.entitySet ?? "")'" }
            ?? "'\(difference.entitySet ?? difference.type ?? "")'"
        switch difference.kind {
        case .entitySetRemoved: return "the entity set \(subject) was removed"
        case .entitySetTypeChanged: return "the entity set \(subject) changed its type"
        case .propertyRemoved: return "the property \(subject) was removed"
        case .propertyTypeChanged: return "the property \(subject) changed its type (\(difference.old ?? "") to \(difference.new ?? ""))"
        case .propertyMadeMandatory: return "the property \(subject) became mandatory and the request has no value for it"
        case .propertyAdded: return "the new mandatory property \(subject) has no value in the request"
        case .keyChanged: return "the key of \(subject) changed"
        case .navigationRemoved: return "the navigation property \(subject) was removed"
        case .functionImportRemoved, .operationRemoved: return "\(subject) was removed"
        default: return "\(difference.kind.rawValue) \(difference.subject)"
        }
    }
}
