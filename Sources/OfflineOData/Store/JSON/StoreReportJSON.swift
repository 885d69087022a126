/// The JSON forms of what the store reports (explanations, archived requests, status, events),
/// shared by the command-line tool's `--json` output and the C API, so both say the same.
extension StoreExplanation {
    /// `{"sql","parameters","countSQL","insideScope","definingRequests","plan"}`.
    @_spi(Tool) public var jsonText: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.writeKey("sql"); writer.writeString(sql)
        writer.writeKey("parameters"); writer.writeValue(.array(parameters.map { .string($0) }))
        writer.writeKey("countSQL"); countSQL.map { writer.writeString($0) } ?? writer.writeNull()
        writer.writeKey("insideScope"); writer.writeBool(isInsideScope)
        writer.writeKey("definingRequests"); writer.writeValue(.array(insideDefiningRequests.map { .string($0) }))
        writer.writeKey("plan"); writer.writeValue(.array(plan.map { .string($0) }))
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension Route {
    /// `{"destination","reason","coveringRequests"}`; destination is offline or online.
    @_spi(Tool) public var jsonText: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.writeKey("destination"); writer.writeString(destination.rawValue)
        writer.writeKey("reason"); writer.writeString(reason)
        writer.writeKey("coveringRequests"); writer.writeValue(.array(coveringRequests.map { .string($0) }))
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension UndoOutcome {
    /// `{"entitySet","action","droppedRequests"}`; action is removed, restored, unmarked or nothing.
    package var jsonText: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.writeKey("entitySet"); writer.writeString(entitySet)
        writer.writeKey("action"); writer.writeString(action.rawValue)
        writer.writeKey("droppedRequests"); writer.writeNumber(droppedRequests)
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension RedownloadOutcome {
    /// `{"entitySet","action"}`; action is updated or removed.
    @_spi(Tool) public var jsonText: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.writeKey("entitySet"); writer.writeString(entitySet)
        writer.writeKey("action"); writer.writeString(action.rawValue)
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension ArchivedRequest {
    /// `{"id","kind","method","url","httpStatus","message","failedAt"}`; `kind` is "refused",
    /// "conflict" or "inDoubt" (``ArchiveKind``).
    @_spi(Tool) public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.writeKey("id"); writer.writeNumber(request.id)
        writer.writeKey("kind"); writer.writeString(kind.rawValue)
        writer.writeKey("method"); writer.writeString(request.method.rawValue)
        writer.writeKey("url"); writer.writeString(request.url)
        writer.writeKey("httpStatus"); httpStatus.map { writer.writeNumber($0) } ?? writer.writeNull()
        writer.writeKey("message"); writer.writeString(message)
        writer.writeKey("failedAt"); writer.writeString(failedAt)
        if let conflict {
            writer.writeKey("conflict"); conflict.write(to: &writer)
        }
        writer.endObject()
    }

    /// A JSON array of `requests`.
    @_spi(Tool) public static func jsonText(_ requests: [ArchivedRequest]) -> String {
        var writer = JSONWriter()
        writer.beginArray()
        for entry in requests { entry.write(to: &writer) }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension QueuedRequest {
    /// `{"id","method","url","body","entitySet","transactionID","createdAt","state","mergeable"}`;
    /// `state` is "pending" or "inDoubt" (``QueueState``), `mergeable` false for a request the
    /// queue's compaction leaves as it is.
    @_spi(Tool) public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.writeKey("id"); writer.writeNumber(id)
        writer.writeKey("method"); writer.writeString(method.rawValue)
        writer.writeKey("url"); writer.writeString(url)
        writer.writeKey("body"); body.map { writer.writeString($0) } ?? writer.writeNull()
        writer.writeKey("entitySet"); entitySet.map { writer.writeString($0) } ?? writer.writeNull()
        writer.writeKey("transactionID"); transactionID.map { writer.writeString($0) } ?? writer.writeNull()
        writer.writeKey("createdAt"); writer.writeString(createdAt)
        writer.writeKey("state"); writer.writeString(state == .inDoubt ? "inDoubt" : "pending")
        writer.writeKey("mergeable"); writer.writeBool(mergeable)
        writer.endObject()
    }

    /// A JSON array of `requests`.
    package static func jsonText(_ requests: [QueuedRequest]) -> String {
        var writer = JSONWriter()
        writer.beginArray()
        for request in requests { request.write(to: &writer) }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension DefiningRequest {
    /// A JSON array of `requests`: `{"name","url","lastDownload","hasDeltaLink"}` each.
    @_spi(Tool) public static func write(_ requests: [DefiningRequest], to writer: inout JSONWriter) {
        writer.beginArray()
        for request in requests {
            writer.beginObject()
            writer.writeKey("name"); writer.writeString(request.name)
            writer.writeKey("url"); writer.writeString(request.url)
            writer.writeKey("lastDownload"); request.lastDownload.map { writer.writeString($0) } ?? writer.writeNull()
            writer.writeKey("hasDeltaLink"); writer.writeBool(request.deltaLink != nil)
            writer.endObject()
        }
        writer.endArray()
    }
}

extension StoreIndex {
    /// A JSON array of `indexes`: `{"entitySet","properties":[...],"name","origin","reason","createdAt"}`
    /// each; origin is "declared" or "automatic".
    @_spi(Tool) public static func write(_ indexes: [StoreIndex], to writer: inout JSONWriter) {
        writer.beginArray()
        for index in indexes {
            writer.beginObject()
            writer.writeKey("entitySet"); writer.writeString(index.entitySet)
            writer.writeKey("properties"); writer.writeValue(.array(index.properties.map { .string($0) }))
            writer.writeKey("name"); writer.writeString(index.name)
            writer.writeKey("origin"); writer.writeString(index.origin.rawValue)
            writer.writeKey("reason"); writer.writeString(index.reason)
            writer.writeKey("createdAt"); writer.writeString(index.createdAt)
            writer.endObject()
        }
        writer.endArray()
    }
}

extension StoreStatus {
    /// `{"state","mode","dialect","serviceRoot","path","queuedRequests","archivedRequests","definingRequests":[{"name","url","lastDownload","hasDeltaLink"}],`
    /// `"indexes":[{"entitySet","properties","name","origin","reason","createdAt"}],"sync":{...} or null}` (see
    /// ``SyncStatistics/write(to:)``).
    package var jsonText: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.writeKey("state"); writer.writeString(state.rawValue)
        writer.writeKey("mode"); writer.writeString(mode.rawValue)
        writer.writeKey("dialect"); writer.writeString(dialect == .v4 ? "v4" : "v2")
        writer.writeKey("serviceRoot"); serviceRoot.map { writer.writeString($0) } ?? writer.writeNull()
        writer.writeKey("path"); path.map { writer.writeString($0) } ?? writer.writeNull()
        writer.writeKey("queuedRequests"); writer.writeNumber(queuedRequests)
        writer.writeKey("archivedRequests"); writer.writeNumber(archivedRequests)
        writer.writeKey("definingRequests"); DefiningRequest.write(definingRequests, to: &writer)
        writer.writeKey("indexes"); StoreIndex.write(indexes, to: &writer)
        writer.writeKey("sync"); sync.map { $0.write(to: &writer) } ?? writer.writeNull()
        writer.writeKey("serviceModelChange")
        writer.writeValue(serviceModelChange.flatMap { try? JSONValue.parse($0) } ?? .null)
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension StoreEvent {
    /// A stable number per kind of event (the C header's `ood_event_kind`).
    package var kindNumber: Int32 {
        switch self {
        case .stateChanged: 1
        case .openFailed: 2
        case .downloadProgress: 3
        case .downloadFinished: 4
        case .firstDownloadComplete: 5
        case .uploadProgress: 6
        case .uploadFinished: 7
        case .entitySetsChanged: 8
        case .requestFailed: 9
        case .uncleanShutdownChecked: 10
        case .serviceModelChanged: 11
        }
    }

    /// The event's details as a JSON object: `{"state"}`, `{"error":{"status","message"}}`,
    /// `{"definingRequest","pages","entities","expectedEntities","bytes"}`, `{"sent","archived","total","bytesSent","bytesReceived"}`,
    /// `{"entitySets":[...]}`, an archived request, `{"findings":[{"check","message"}]}`; `{}` for
    /// "first download complete".
    package var jsonText: String {
        var writer = JSONWriter()
        writer.beginObject()
        switch self {
        case .stateChanged(let state):
            writer.writeKey("state"); writer.writeString(state.rawValue)
        case .openFailed(let error):
            Self.write(error, to: &writer)
        case .downloadFinished(let error), .uploadFinished(let error):
            if let error { Self.write(error, to: &writer) }
        case .downloadProgress(let progress):
            writer.writeKey("definingRequest"); writer.writeString(progress.definingRequest)
            writer.writeKey("pages"); writer.writeNumber(progress.pages)
            writer.writeKey("entities"); writer.writeNumber(progress.entities)
            writer.writeKey("expectedEntities"); progress.expectedEntities.map { writer.writeNumber($0) } ?? writer.writeNull()
            writer.writeKey("bytes"); writer.writeNumber(progress.bytes)
        case .uploadProgress(let progress):
            writer.writeKey("sent"); writer.writeNumber(progress.sent)
            writer.writeKey("archived"); writer.writeNumber(progress.archived)
            writer.writeKey("total"); writer.writeNumber(progress.total)
            writer.writeKey("bytesSent"); writer.writeNumber(progress.bytesSent)
            writer.writeKey("bytesReceived"); writer.writeNumber(progress.bytesReceived)
        case .entitySetsChanged(let sets):
            writer.writeKey("entitySets"); writer.writeValue(.array(sets.sorted().map { .string($0) }))
        case .requestFailed(let archived):
            writer.writeKey("request"); archived.write(to: &writer)
        case .uncleanShutdownChecked(let findings):
            writer.writeKey("findings"); StoreFinding.write(findings, to: &writer)
        case .serviceModelChanged(let check):
            writer.writeKey("check"); writer.writeValue((try? JSONValue.parse(check.jsonText)) ?? .null)
        case .firstDownloadComplete:
            break
        }
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private static func write(_ error: ODataError, to writer: inout JSONWriter) {
        writer.writeKey("error")
        writer.beginObject()
        writer.writeKey("status"); writer.writeNumber(Int(error.code.rawValue))
        writer.writeKey("message"); writer.writeString(error.description)
        writer.endObject()
    }
}

extension StoreFinding {
    /// A JSON array of `findings`, each `{"check","message"}`; `[]` for a sound store.
    @_spi(Tool) public static func jsonText(_ findings: [StoreFinding]) -> String {
        var writer = JSONWriter()
        write(findings, to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Writes `findings` as a JSON array of `{"check","message"}`.
    package static func write(_ findings: [StoreFinding], to writer: inout JSONWriter) {
        writer.beginArray()
        for finding in findings {
            writer.beginObject()
            writer.writeKey("check"); writer.writeString(finding.check)
            writer.writeKey("message"); writer.writeString(finding.message)
            writer.endObject()
        }
        writer.endArray()
    }
}

extension ConflictDetail {
    /// `{"requestID","outcome","policy","entitySet","method","url","httpStatus","original","local","served",
    /// "properties":[{"name","original","local"?,"served"?,"changedBy"}],"at"}`: the three versions
    /// of a conflict and who changed what (`changedBy` local, service, both or same).
    @_spi(Tool) public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.writeKey("requestID"); writer.writeNumber(requestID)
        writer.writeKey("outcome"); writer.writeString(outcome.rawValue)
        writer.writeKey("policy"); writer.writeString(policy)
        writer.writeKey("entitySet"); entitySet.map { writer.writeString($0) } ?? writer.writeNull()
        writer.writeKey("method"); writer.writeString(method.rawValue)
        writer.writeKey("url"); writer.writeString(url)
        writer.writeKey("httpStatus"); httpStatus.map { writer.writeNumber($0) } ?? writer.writeNull()
        writer.writeKey("original"); writer.writeValue(original)
        writer.writeKey("local"); writer.writeValue(local)
        writer.writeKey("served"); writer.writeValue(served)
        writer.writeKey("properties"); PropertyChange.write(properties, to: &writer)
        writer.writeKey("at"); writer.writeString(at)
        writer.endObject()
    }

    /// A JSON array of `details`.
    @_spi(Tool) public static func jsonText(_ details: [ConflictDetail]) -> String {
        var writer = JSONWriter()
        writer.beginArray()
        for detail in details { detail.write(to: &writer) }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

extension PropertyChange {
    static func write(_ changes: [PropertyChange], to writer: inout JSONWriter) {
        writer.beginArray()
        for change in changes {
            writer.beginObject()
            writer.writeKey("name"); writer.writeString(change.name)
            writer.writeKey("original"); writer.writeValue(change.original)
            if let local = change.local { writer.writeKey("local"); writer.writeValue(local) }
            if let served = change.served { writer.writeKey("served"); writer.writeValue(served) }
            writer.writeKey("changedBy"); writer.writeString(change.changedBy.rawValue)
            writer.endObject()
        }
        writer.endArray()
    }
}

extension ConflictVersions {
    /// `{"entitySet","url","method","httpStatus","policy","original","local","served","properties"}`:
    /// what a C or Python resolver receives.
    package var jsonText: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.writeKey("entitySet"); writer.writeString(entitySet)
        writer.writeKey("url"); writer.writeString(url)
        writer.writeKey("method"); writer.writeString(method.rawValue)
        writer.writeKey("httpStatus"); writer.writeNumber(httpStatus)
        writer.writeKey("policy"); writer.writeString(policy.rawValue)
        writer.writeKey("original"); writer.writeValue(original)
        writer.writeKey("local"); writer.writeValue(local)
        writer.writeKey("served"); writer.writeValue(served)
        writer.writeKey("properties"); PropertyChange.write(properties, to: &writer)
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
