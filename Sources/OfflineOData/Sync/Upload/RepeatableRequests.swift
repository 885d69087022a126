#if canImport(Glibc)
import Glibc
#endif

/// Repeatable requests (OASIS Repeatable Requests 1.0) for services whose `$metadata` declares
/// them (``MetadataModel/supportsRepeatableRequests(entitySet:)``): a request the service applied
/// but whose answer was lost stays queued and is sent again, and the service, seeing the same
/// `Repeatability-Request-ID`, answers it without applying it twice.
///
/// The id is the store's client id (random, made once per store), the queue id, which the
/// store never reuses (AUTOINCREMENT), and the first-sent date, so it is unique for all time, also
/// for a request the user sends again from the error archive. `Repeatability-First-Sent`
/// is the date of the first attempt: it is written to the queue, durably, before the request
/// leaves, so a retry after a crash sends the same date.
struct RepeatableRequests {
    let model: MetadataModel
    let clientID: String

    static let clientIDKey = "repeatability_client_id"

    /// The store's client id, made on first use.
    static func load(model: MetadataModel, file: StoreFile) throws(ODataError) -> RepeatableRequests {
        let clientID = try file.withConnection { db throws(ODataError) -> String in
            if let known = try StoreInfoTable.value(clientIDKey, in: db) { return known }
            let made = hexText(randomBytes(16))
            try StoreInfoTable.setValue(made, for: clientIDKey, in: db)
            return made
        }
        return RepeatableRequests(model: model, clientID: clientID)
    }

    func applies(to request: QueuedRequest) -> Bool {
        request.entitySet.map { model.supportsRepeatableRequests(entitySet: $0) } ?? false
    }

    /// Call it just before `requests` leave: marks them sent, in doubt until their answers are
    /// recorded (``QueueState/inDoubt``), and stamps the first-sent date of those the service will
    /// see for the first time, committed in one transaction before anything is sent. Returns them
    /// with their state and dates.
    func markSending(_ requests: [QueuedRequest], file: StoreFile) throws(ODataError) -> [QueuedRequest] {
        let fresh = requests.filter { $0.firstSent == nil && applies(to: $0) }
        let now = httpDateNow()
        try file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                try RequestQueueTable.markInDoubt(ids: requests.map(\.id), in: db)
                if !fresh.isEmpty { try RequestQueueTable.markFirstSent(ids: fresh.map(\.id), date: now, in: db) }
            }
        }
        return requests.map { request in
            var request = request
            request.state = .inDoubt
            if request.firstSent == nil && applies(to: request) { request.firstSent = now }
            return request
        }
    }

    /// `client-queueid-firstsent` (the date's letters and digits): the same for every retry of one
    /// request, and new for a request the user sent again from the error archive (requeued, its
    /// first-sent date cleared), which the service must not answer with the refusal it remembers.
    static func requestID(clientID: String, queueID: Int64, firstSent: String) -> String {
        let stamp = String(String.UnicodeScalarView(firstSent.unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) }))
        return "\(clientID)-\(queueID)-\(stamp)"
    }

    /// The headers that make `request` repeatable; none when the service does not take them for
    /// its entity set (or it was never stamped).
    func headers(for request: QueuedRequest) -> [HTTPHeader] {
        guard applies(to: request), let firstSent = request.firstSent else { return [] }
        return [HTTPHeader("Repeatability-Request-ID", Self.requestID(clientID: clientID, queueID: request.id, firstSent: firstSent)),
                HTTPHeader("Repeatability-Client-ID", clientID),
                HTTPHeader("Repeatability-First-Sent", firstSent)]
    }
}
