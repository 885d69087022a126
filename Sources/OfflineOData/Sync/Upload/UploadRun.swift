/// What every upload does before it sends anything, and the counts it keeps while sending, whether
/// it sends one request at a time (``Uploader``) or in `$batch`es (``BatchUploader``): written once.
///
/// Starting a run counts the queue, settles the requests an earlier upload left in doubt
/// (``InDoubtReconciler``) and compacts the queue (``QueueCompactor``); the outcome starts with
/// what settling found.
struct UploadRun {
    /// Queued requests at the start, less those the compaction dropped: the total progress reports.
    let total: Int
    /// Sent and archived so far (settled requests included), and how many the compaction dropped.
    var outcome: UploadOutcome
    /// The repeatable-request headers of the sets that take them (loaded once per upload).
    let repeatable: RepeatableRequests
    /// Reads entities for their ETags (a 428, or a set that checks ETags and a request without one).
    let recovery: ETagRecovery
    /// Media creates left in doubt and found applied: the address of the entity created, by
    /// request id (``InDoubtReconciler/Outcome/adoptedMedia``).
    let adoptedMedia: [Int64: String]
    private let transport: HTTPTransport
    /// The store's service transport serves one sync operation at a time: what it moves after
    /// this is the upload's.
    private let trafficBefore: HTTPTraffic

    init(transport: HTTPTransport, serviceRoot: String, dialect: Dialect, file: StoreFile, schema: StoreSchema,
         compactsQueue: Bool, cancellation: HTTPCancellation?) throws(ODataError) {
        let queued = try file.withConnection { db throws(ODataError) in try RequestQueueTable.count(in: db) }
        self.transport = transport
        trafficBefore = transport.traffic
        repeatable = try RepeatableRequests.load(model: schema.model, file: file)
        let alternateKeys = try file.withConnection { db throws(ODataError) in try AlternateKeys.load(model: schema.model, in: db) }
        let settled = try InDoubtReconciler(transport: transport, serviceRoot: serviceRoot, dialect: dialect, file: file,
                                            schema: schema, repeatable: repeatable, alternateKeys: alternateKeys)
            .reconcile(cancellation: cancellation)
        let compacted = compactsQueue ? try QueueCompactor(schema: schema).compact(file).dropped.count : 0
        total = queued - compacted
        outcome = UploadOutcome(sent: settled.applied, archived: settled.archived, inDoubt: settled.archived)
        outcome.compacted = compacted
        adoptedMedia = settled.adoptedMedia
        recovery = ETagRecovery(transport: transport, serviceRoot: serviceRoot, dialect: dialect, file: file, schema: schema)
    }

    /// Requests neither sent nor archived yet.
    var remaining: Int { total - outcome.sent - outcome.archived - outcome.discarded }

    /// Throws ``ODataError/Code/aborted`` once the upload is cancelled.
    func checkCancellation(_ cancellation: HTTPCancellation?) throws(ODataError) {
        if cancellation?.isCancelled == true {
            throw ODataError(.aborted, "the upload was cancelled with \(remaining) requests still queued")
        }
    }

    /// Reports progress; throws ``ODataError/Code/aborted`` when `progress` answers false (stop).
    func report(to progress: (UploadProgress) -> Bool) throws(ODataError) {
        let traffic = transport.traffic.since(trafficBefore)
        guard progress(UploadProgress(sent: outcome.sent, archived: outcome.archived, total: total,
                                      bytesSent: traffic.sent, bytesReceived: traffic.received)) else {
            throw ODataError(.aborted, "the upload was stopped with \(remaining) requests still queued")
        }
    }

    /// The progress to report while a media stream of this upload travels, `streamBytes` of it
    /// sent: the counts as they are, the bytes so far and those. `before` is ``transport``'s
    /// traffic taken before the request left (the transport is busy during the transfer).
    func inFlight(streamBytes: Int64, before: HTTPTraffic) -> UploadProgress {
        let traffic = before.since(trafficBefore)
        return UploadProgress(sent: outcome.sent, archived: outcome.archived, total: total,
                              bytesSent: traffic.sent + Int(streamBytes), bytesReceived: traffic.received)
    }

    /// The transport's traffic now, for ``inFlight(streamBytes:before:)``.
    var trafficNow: HTTPTraffic { transport.traffic }

    /// The outcome, with the bytes the upload moved.
    func finished() -> UploadOutcome {
        var finished = outcome
        let traffic = transport.traffic.since(trafficBefore)
        finished.bytesSent = traffic.sent
        finished.bytesReceived = traffic.received
        return finished
    }
}
