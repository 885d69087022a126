/// Finds out whether a media create left in doubt (its `POST` sent, the answer lost: the process
/// killed or the connection broken mid-transfer) created its entity, by reading back (issue 35,
/// docs/MEDIA.md). The service assigns the key, so the entity cannot be read by it; what the
/// engine knows is the stream it sent, its length and SHA-256. So the entity set is listed, and the
/// stream of every entity that may be the one created is compared with the local file:
/// - exactly one has the same bytes: it is the one created; the upload adopts it (sets its
///   properties with a `PATCH`, reads it back) and does not `POST` again;
/// - none has them, every entity of the set seen: the create was not applied; it is sent again;
/// - more than one has them, or the set is too large to look through: the engine cannot tell; the
///   create goes to the error archive as in doubt, for the app to decide.
///
/// Entities the store had before the create was written (rows inserted before its own) cannot be
/// the one created, so they are not compared: a store that downloaded its set compares only what
/// is new on the service. The properties are not used to tell: a bare `POST` leaves them as the
/// service chooses, and missing the entity would create it twice. Reads only: any answer that is
/// not a page, a stream or a 404 stops the upload with the create still in doubt.
struct MediaCreateFinder {
    let transport: HTTPTransport
    let serviceRoot: String
    let dialect: Dialect
    let file: StoreFile

    /// At most this many entities of the set are listed, and at most this many streams compared;
    /// past either the engine does not guess.
    static let maximumListed = 5_000
    static let maximumCompared = 200

    enum Finding: Equatable {
        /// The entity created, at this address relative to the service root (`Documents(7)`).
        case found(address: String)
        case notThere
        case cannotTell(String)
    }

    func find(_ request: QueuedRequest, stream: StreamRecord, table: EntitySetTable,
              cancellation: HTTPCancellation?) throws(ODataError) -> Finding {
        guard let entityID = request.entityID, let length = stream.length, let sha256 = stream.sha256 else {
            return .cannotTell("the store has no length and hash of the stream it sent, so it cannot compare it with the service's")
        }
        var matches: [String] = []
        var compared = 0
        var listed = 0
        var next: String? = ServiceURL.resolve(table.entitySet, against: serviceRoot)
        while let url = next {
            let page = try transport.send(HTTPRequest(method: "GET", url: url, headers: [HTTPHeader("Accept", "application/json")]
                                                      + UploadRequests(serviceRoot: serviceRoot, dialect: dialect).versionHeaders),
                                          cancellation: cancellation)
            guard page.status == 200, let document = try? JSONValue.parse(page.body) else {
                var error = transport.serviceError(page, request: "GET \(redactedURL(url))")
                error.message += " (looking for a media entity whose create was left in doubt: it stays in doubt)"
                throw error
            }
            let (entities, nextLink) = Self.entries(of: document, dialect: dialect)
            listed += entities.count
            if listed > Self.maximumListed {
                return .cannotTell("\(table.entitySet) has more than \(Self.maximumListed) entities, too many to look through")
            }
            for entity in entities {
                let served = ServedEntity(listed: entity, table: table, dialect: dialect)
                let key = table.keyColumns.map { served.value(of: $0) }
                guard !key.isEmpty, !key.contains(where: { $0 == nil }) else {
                    return .cannotTell("\(table.entitySet) lists an entity without its key, which cannot be compared")
                }
                let values = key.compactMap { $0 }
                if try knownBefore(values, table: table, entityID: entityID) { continue }
                compared += 1
                if compared > Self.maximumCompared {
                    return .cannotTell("more than \(Self.maximumCompared) entities of \(table.entitySet) are new to the store, "
                        + "too many streams to compare")
                }
                let address = table.entitySet + KeyPredicateText.predicate(Array(zip(values, table.keyColumns)), dialect: dialect)
                if try sameStream(at: address, length: length, sha256: sha256, cancellation: cancellation) { matches.append(address) }
            }
            next = try nextLink.map { link throws(ODataError) -> String in
                let absolute = ServiceURL.resolveReference(link, against: url)
                try ServiceURL.checkSameOrigin(absolute, as: serviceRoot, what: "GET \(redactedURL(url)): the next link")
                return absolute
            }
        }
        switch matches.count {
        case 0: return .notThere
        case 1: return matches.first.map { .found(address: $0) } ?? .notThere
        default:
            return .cannotTell("\(matches.count) entities of \(table.entitySet) new to the store have the same stream "
                + "(\(matches.joined(separator: ", "))), so the engine cannot tell which one it created")
        }
    }

    /// The entities of a page and its next link: V4 `value` and `@odata.nextLink`, V2 `d.results`
    /// (or `d` as an array) and `d.__next`.
    static func entries(of document: JSONValue, dialect: Dialect) -> (entities: [JSONValue], next: String?) {
        if dialect == .v4 {
            return (document["value"]?.arrayValue ?? [], document["@odata.nextLink"]?.stringValue)
        }
        let d = document["d"]
        return (d?["results"]?.arrayValue ?? d?.arrayValue ?? [], d?["__next"]?.stringValue)
    }

    /// Whether the store has a row with this key inserted before the create's own: such an entity
    /// was on the service before the create was written, so it is not the one created.
    private func knownBefore(_ key: [SQLValue], table: EntitySetTable, entityID: Int64) throws(ODataError) -> Bool {
        let condition = try table.keyCondition()
        return try file.withConnection { db throws(ODataError) -> Bool in
            let select = try db.prepare("SELECT 1 FROM \(table.quotedName) WHERE \(condition) AND \"_ood_id\" < ?\(key.count + 1) LIMIT 1")
            try select.bind(key + [.integer(entityID)])
            return try select.step()
        }
    }

    /// Whether the stream at `address` has these bytes: fetched into a hash, stopped at once when
    /// its announced or received length differs (memory stays flat whatever the size).
    private func sameStream(at address: String, length: Int64, sha256: String,
                            cancellation: HTTPCancellation?) throws(ODataError) -> Bool {
        let url = ServiceURL.resolve(address + "/$value", against: serviceRoot)
        let sink = StreamDigestSink(expected: length)
        let response: HTTPResponse
        do {
            response = try transport.send(HTTPRequest(method: "GET", url: url), cancellation: cancellation, into: sink)
        } catch {
            if sink.differs { return false }
            throw error
        }
        switch sink.status {
        case 200: return !sink.differs && sink.received == length && sink.finish() == sha256
        case 204, 404: return false  // no stream there
        default:
            var error = transport.serviceError(HTTPResponse(status: response.status, headers: response.headers, body: sink.errorBody),
                                               request: "GET \(redactedURL(url))")
            error.message += " (comparing streams to settle a media create left in doubt: it stays in doubt)"
            throw error
        }
    }
}

/// Hashes a stream as it arrives, and stops it as soon as its length is not the one expected.
private final class StreamDigestSink: HTTPBodySink {
    let expected: Int64
    private(set) var status = 0
    private(set) var differs = false
    private(set) var received: Int64 = 0
    private(set) var errorBody: [UInt8] = []
    private var digest = SHA256()

    init(expected: Int64) { self.expected = expected }

    func begin(status: Int, headers: [HTTPHeader]) {
        self.status = status
        guard status == 200 else { return }
        let announced = headers.last { asciiLowercased($0.name) == "content-length" }.flatMap { Int64($0.value.trimmingSpaces()) }
        if let announced, announced != expected { differs = true }
    }

    func expect(length: Int) {}

    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard status == 200 else {
            if errorBody.count < 4096 { errorBody.append(contentsOf: chunk.prefix(4096 - errorBody.count)) }
            return true
        }
        guard !differs else { return false }
        received += Int64(chunk.count)
        guard received <= expected else {
            differs = true
            return false
        }
        digest.update(chunk)
        return true
    }

    func finish() -> String { digest.finish() }
}

extension ServedEntity {
    /// An entity as a listing gives it (one member of a page), compared the same way.
    init(listed entity: JSONValue, table: EntitySetTable, dialect: Dialect) {
        json = entity
        document = entity
        etag = entity["@odata.etag"]?.stringValue ?? entity["__metadata"]?["etag"]?.stringValue
        response = HTTPResponse(status: 200, headers: [], body: [])
        self.table = table
        self.dialect = dialect
    }
}
