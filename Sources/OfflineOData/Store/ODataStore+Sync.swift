/// Downloads and uploads through an ``ODataStore``: one at a time, with state, progress and
/// change events, and cancellable through their ``RequestHandle``.
extension ODataStore {
    /// Downloads the defining requests (all, or those named in `subset`); see
    /// ``LocalStore/download(subset:delta:pageSize:cancellation:progress:)``. Each defining
    /// request's entities are announced as changed when its transaction commits.
    ///
    /// `progress`, if given, runs after each page on the store's sync thread (beside the
    /// ``StoreEvent/downloadProgress(_:)`` event); returning false stops the download.
    @discardableResult
    public func download(subset: [String]? = nil, delta: Bool = true,
                         progress: (@Sendable (DownloadProgress) -> Bool)? = nil,
                         completion: @escaping @Sendable (Result<[DownloadOutcome], ODataError>) -> Void) -> RequestHandle {
        let eventHub = self.eventHub
        let pageSize = options.pageSize
        return enqueue(lane: { _ in .sync }, { [weak self] opened, handle throws(ODataError) in
            guard let self else { throw Self.closedError }
            let offline = try opened.requireOffline("a download")
            guard opened.online != nil else { throw ODataError(.misuse, "a download needs the service root, and this store has none") }
            let all = try offline.definingRequests().map(\.name)
            for name in subset ?? [] where !all.contains(name) {
                throw ODataError(.misuse, "the store has no defining request named '\(name)'")
            }
            let names = subset.map { wanted in all.filter { wanted.contains($0) } } ?? all
            return try runningSyncOperation(handle, state: .downloading) { () throws(ODataError) -> [DownloadOutcome] in
                var outcomes: [DownloadOutcome] = []
                do throws(ODataError) {
                    for name in names {
                        outcomes += try offline.download(subset: [name], delta: delta, pageSize: pageSize,
                                                         cancellation: handle.cancellation) { step in
                            eventHub.post(.downloadProgress(step))
                            return !handle.cancellation.isCancelled && (progress?(step) ?? true)
                        }
                        eventHub.postChanges(opened.entitySets(ofDefiningRequest: name))
                    }
                } catch {
                    eventHub.post(.downloadFinished(error))
                    throw error
                }
                eventHub.post(.downloadFinished(nil))
                return outcomes
            }
        }, completion: completion)
    }

    public func download(subset: [String]? = nil, delta: Bool = true) async throws(ODataError) -> [DownloadOutcome] {
        try await awaitResult { completion in download(subset: subset, delta: delta, completion: completion) }
    }

    /// Uploads the request queue; see ``LocalStore/upload(batch:batchSize:groupByTransaction:cancellation:progress:)``.
    /// Requests the service refused are announced one by one (``StoreEvent/requestFailed(_:)``),
    /// and the sets whose entities took the service's answers as changed.
    ///
    /// `progress`, if given, runs after each answered request on the store's sync thread;
    /// returning false stops the upload after that request.
    @discardableResult
    public func upload(batch: Bool = false, batchSize: Int = 100, groupByTransaction: Bool = false,
                       progress: (@Sendable (UploadProgress) -> Bool)? = nil,
                       completion: @escaping @Sendable (Result<UploadOutcome, ODataError>) -> Void) -> RequestHandle {
        let eventHub = self.eventHub
        let compactsQueue = options.compactsUploadQueue
        return enqueue(lane: { _ in .sync }, { [weak self] opened, handle throws(ODataError) in
            guard let self else { throw Self.closedError }
            let offline = try opened.requireOffline("an upload")
            guard opened.online != nil else { throw ODataError(.misuse, "an upload needs the service root, and this store has none") }
            return try runningSyncOperation(handle, state: .uploading) { () throws(ODataError) -> UploadOutcome in
                let queuedBefore = try offline.file.queuedRequests()
                let archivedBefore = Set(try offline.file.errorArchive().map(\.request.id))
                let result: Result<UploadOutcome, ODataError>
                do throws(ODataError) {
                    // Cancelling stops between requests, never during one: a request cut off in flight
                    // may have been applied by the service and would be sent twice by the next upload.
                    result = .success(try offline.upload(batch: batch, batchSize: batchSize, groupByTransaction: groupByTransaction,
                                                         compactsQueue: compactsQueue, cancellation: nil) { step in
                        eventHub.post(.uploadProgress(step))
                        return !handle.cancellation.isCancelled && (progress?(step) ?? true)
                    })
                } catch {
                    result = .failure(error)
                }
                // What left the queue changed its entity (the service's answer, or an error mark).
                let stillQueued = Set((try? offline.file.queuedRequests().map(\.id)) ?? queuedBefore.map(\.id))
                eventHub.postChanges(Set(queuedBefore.filter { !stillQueued.contains($0.id) }.compactMap(\.entitySet)))
                for archived in (try? offline.file.errorArchive()) ?? [] where !archivedBefore.contains(archived.request.id) {
                    eventHub.post(.requestFailed(archived))
                }
                switch result {
                case .success(let outcome):
                    eventHub.post(.uploadFinished(nil))
                    return outcome
                case .failure(let error):
                    eventHub.post(.uploadFinished(error))
                    throw error
                }
            }
        }, completion: completion)
    }

    public func upload(batch: Bool = false, batchSize: Int = 100, groupByTransaction: Bool = false) async throws(ODataError) -> UploadOutcome {
        try await awaitResult { completion in
            upload(batch: batch, batchSize: batchSize, groupByTransaction: groupByTransaction, completion: completion)
        }
    }
    /// What ``upload(batch:batchSize:groupByTransaction:progress:completion:)`` with the same
    /// arguments would send, in order; nothing is sent or changed. See
    /// ``LocalStore/previewUpload(batch:batchSize:groupByTransaction:)``.
    @discardableResult
    public func previewUpload(batch: Bool = false, batchSize: Int = 100, groupByTransaction: Bool = false,
                              completion: @escaping @Sendable (Result<UploadPreview, ODataError>) -> Void) -> RequestHandle {
        // On the sync lane: after an upload issued before it, so it shows what is left.
        let compactsQueue = options.compactsUploadQueue
        return enqueue(lane: { _ in .sync }, { opened, _ throws(ODataError) in
            let offline = try opened.requireOffline("an upload's preview")
            guard opened.online != nil else { throw ODataError(.misuse, "an upload needs the service root, and this store has none") }
            return try offline.previewUpload(batch: batch, batchSize: batchSize, groupByTransaction: groupByTransaction,
                                             compactsQueue: compactsQueue)
        }, completion: completion)
    }

    public func previewUpload(batch: Bool = false, batchSize: Int = 100,
                              groupByTransaction: Bool = false) async throws(ODataError) -> UploadPreview {
        try await awaitResult { completion in
            previewUpload(batch: batch, batchSize: batchSize, groupByTransaction: groupByTransaction, completion: completion)
        }
    }

    /// Reads one entity from the service again, addressed by its key; see
    /// ``LocalStore/redownloadEntity(url:cancellation:)``. It runs on the sync lane, one at a time
    /// with downloads and uploads (it asks the service, and must not hold up local writes while it
    /// waits); its entity set is announced as changed.
    @discardableResult
    public func redownloadEntity(url: String,
                                 completion: @escaping @Sendable (Result<RedownloadOutcome, ODataError>) -> Void) -> RequestHandle {
        let eventHub = self.eventHub
        return enqueue(lane: { _ in .sync }, { opened, handle throws(ODataError) in
            let offline = try opened.requireOffline("a re-download")
            guard opened.online != nil else { throw ODataError(.misuse, "a re-download needs the service root, and this store has none") }
            let outcome = try offline.redownloadEntity(url: url, cancellation: handle.cancellation)
            eventHub.postChanges([outcome.entitySet])
            return outcome
        }, completion: completion)
    }

    @discardableResult
    public func redownloadEntity(url: String) async throws(ODataError) -> RedownloadOutcome {
        try await awaitResult { completion in redownloadEntity(url: url, completion: completion) }
    }
}

/// The store's record of its syncs (see ``LocalStore/syncStatistics()`` and ``LocalStore/syncLog(limit:)``).
extension ODataStore {
    /// The last downloads, the queue's depth and age, what needs a decision and the last upload.
    @discardableResult
    public func syncStatistics(completion: @escaping @Sendable (Result<SyncStatistics, ODataError>) -> Void) -> RequestHandle {
        enqueue(lane: { _ in .read }, { opened, _ throws(ODataError) in
            try opened.requireOffline("the sync statistics").syncStatistics()
        }, completion: completion)
    }

    public func syncStatistics() async throws(ODataError) -> SyncStatistics {
        try await awaitResult { completion in syncStatistics(completion: completion) }
    }

    /// The newest `limit` entries of the sync log (all when nil), newest first.
    @discardableResult
    public func syncLog(limit: Int? = nil,
                        completion: @escaping @Sendable (Result<[SyncLogEntry], ODataError>) -> Void) -> RequestHandle {
        enqueue(lane: { _ in .read }, { opened, _ throws(ODataError) in
            try opened.requireOffline("the sync log").syncLog(limit: limit)
        }, completion: completion)
    }

    public func syncLog(limit: Int? = nil) async throws(ODataError) -> [SyncLogEntry] {
        try await awaitResult { completion in syncLog(limit: limit, completion: completion) }
    }
}
