/// Downloads and uploads: one at a time on the store's sync lane, with state, progress and change
/// events, and cancellable through their ``RequestHandle``.
extension StoreOperation where Output == [DownloadOutcome] {
    /// Downloads the defining requests (see ``DownloadOptions``, and
    /// ``LocalStore/download(subset:full:pageSize:cancellation:progress:)``). Each defining
    /// request's entities are announced as changed when its transaction commits.
    public static func download(_ options: DownloadOptions = DownloadOptions()) -> StoreOperation<[DownloadOutcome]> {
        StoreOperation(lane: .sync) { context throws(ODataError) in
            _ = try context.dispatcher.requireFileAndService("a download")
            // The service's model first: migrated in place when compatible (the dispatcher changes).
            if options.checksServiceModel {
                let started = WriteHolder.monotonicSeconds()
                do throws(ODataError) {
                    try context.checkServiceModelBeforeDownload()
                } catch {
                    // The download failed at its first request: recorded for each defining request
                    // it was to download, as a download failing on a page is.
                    let offline = try context.dispatcher.requireFileAndService("a download")
                    var recorded = error
                    for name in try offline.definingRequests().map(\.name) where options.subset?.contains(name) ?? true {
                        recorded = offline.recordFailedDownload(of: name, error: error, reached: nil, startedAt: started)
                    }
                    throw recorded
                }
            }
            let offline = try context.dispatcher.requireFileAndService("a download")
            let (dispatcher, events, cancellation) = (context.dispatcher, context.events, context.handle.cancellation)
            let all = try offline.definingRequests().map(\.name)
            for name in options.subset ?? [] where !all.contains(name) {
                throw ODataError(.misuse, "the store has no defining request named '\(name)'")
            }
            let names = options.subset.map { wanted in all.filter { wanted.contains($0) } } ?? all
            return try context.runningSync(as: .downloading) { () throws(ODataError) -> [DownloadOutcome] in
                var outcomes: [DownloadOutcome] = []
                do throws(ODataError) {
                    for name in names {
                        outcomes += try offline.download(subset: [name], full: options.full, pageSize: context.options.pageSize,
                                                         cancellation: cancellation) { step in
                            events.postProgress(.downloadProgress(step))
                            return cancellation.isCancelled || (options.progress?(step) ?? false)
                        }
                        events.postChanges(dispatcher.entitySets(ofDefiningRequest: name))
                    }
                } catch {
                    events.post(.downloadFinished(error))
                    throw error
                }
                events.post(.downloadFinished(nil))
                return outcomes
            }
        }
    }
}

extension StoreOperation where Output == UploadOutcome {
    /// Uploads the request queue (see ``UploadOptions``, and
    /// ``LocalStore/upload(batch:batchSize:groupByTransaction:compactsQueue:cancellation:progress:)``).
    /// Requests the service refused are announced one by one (``StoreEvent/requestFailed(_:)``),
    /// and the sets whose entities took the service's answers as changed.
    public static func upload(_ options: UploadOptions = UploadOptions()) -> StoreOperation<UploadOutcome> {
        StoreOperation(lane: .sync) { context throws(ODataError) in
            let offline = try context.dispatcher.requireFileAndService("an upload")
            let (events, cancellation) = (context.events, context.handle.cancellation)
            return try context.runningSync(as: .uploading) { () throws(ODataError) -> UploadOutcome in
                // Ids and sets only: the bodies of a long queue are not read twice more for this.
                let setsBefore = try offline.file.queuedEntitySetsByID()
                let archivedBefore = try offline.file.archivedRequestIDs()
                let result: Result<UploadOutcome, ODataError>
                do throws(ODataError) {
                    // Cancelling stops between requests, never during one: a request cut off in flight
                    // may have been applied by the service and would be sent twice by the next upload.
                    result = .success(try offline.upload(batch: options.batch, batchSize: options.batchSize,
                                                         groupByTransaction: options.groupByTransaction,
                                                         compactsQueue: options.compactsQueue ?? context.options.compactsUploadQueue,
                                                         conflicts: UploadConflicts(policy: options.conflictPolicy, resolver: options.conflictResolver),
                                                         cancellation: nil) { step in
                        events.postProgress(.uploadProgress(step))
                        return cancellation.isCancelled || (options.progress?(step) ?? false)
                    })
                } catch {
                    result = .failure(error)
                }
                // What left the queue changed its entity (the service's answer, or an error mark).
                // A failed read announces every set the queue had: a change event too many is harmless.
                let setsAfter = (try? offline.file.queuedEntitySetsByID()) ?? [:]
                events.postChanges(Set(setsBefore.filter { setsAfter[$0.key] == nil }.values))
                let archivedAfter = (try? offline.file.archivedRequestIDs()) ?? archivedBefore
                if !archivedAfter.subtracting(archivedBefore).isEmpty {
                    for archived in (try? offline.file.errorArchive()) ?? [] where !archivedBefore.contains(archived.request.id) {
                        events.post(.requestFailed(archived))
                    }
                }
                switch result {
                case .success(let outcome):
                    events.post(.uploadFinished(nil))
                    return outcome
                case .failure(let error):
                    events.post(.uploadFinished(error))
                    throw error
                }
            }
        }
    }
}

extension StoreOperation where Output == UploadPreview {
    /// What ``upload(_:)`` with the same options would send, in order; nothing is sent or
    /// changed. See ``LocalStore/previewUpload(batch:batchSize:groupByTransaction:compactsQueue:)``.
    /// On the sync lane: after an upload issued before it, so it shows what is left.
    public static func previewUpload(_ options: UploadOptions = UploadOptions()) -> StoreOperation<UploadPreview> {
        StoreOperation(lane: .sync) { context throws(ODataError) in
            let offline = try context.dispatcher.requireFileAndService("an upload's preview")
            return try offline.previewUpload(batch: options.batch, batchSize: options.batchSize,
                                             groupByTransaction: options.groupByTransaction,
                                             compactsQueue: options.compactsQueue ?? context.options.compactsUploadQueue)
        }
    }
}

extension StoreOperation where Output == RedownloadOutcome {
    /// Reads one entity from the service again, addressed by its key; see
    /// ``LocalStore/redownloadEntity(url:cancellation:)``. It runs on the sync lane, one at a time
    /// with downloads and uploads (it asks the service, and must not hold up local writes while it
    /// waits); its entity set is announced as changed.
    public static func redownloadEntity(url: String) -> StoreOperation<RedownloadOutcome> {
        StoreOperation(lane: .sync) { context throws(ODataError) in
            let offline = try context.dispatcher.requireOffline("a re-download")
            try context.dispatcher.requireOnline("a re-download")
            let outcome = try offline.redownloadEntity(url: url, cancellation: context.handle.cancellation)
            context.announceChanges([outcome.entitySet])
            return outcome
        }
    }
}

extension StoreOperation where Output == SyncStatistics {
    /// The last downloads, the queue's depth and age, what needs a decision and the last upload
    /// (see ``LocalStore/syncStatistics()``).
    public static var syncStatistics: StoreOperation<SyncStatistics> {
        StoreOperation(lane: .read) { context throws(ODataError) in
            try context.dispatcher.requireOffline("the sync statistics").syncStatistics()
        }
    }
}

extension StoreOperation where Output == [SyncLogEntry] {
    /// The newest `limit` entries of the sync log (all when nil), newest first.
    public static func syncLog(limit: Int? = nil) -> StoreOperation<[SyncLogEntry]> {
        StoreOperation(lane: .read) { context throws(ODataError) in
            try context.dispatcher.requireOffline("the sync log").syncLog(limit: limit)
        }
    }
}
