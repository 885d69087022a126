/// The service's `$metadata` against the store's model: the check, what every download does with
/// it, and the app's ways out when the change is more than additive.
extension StoreOperation where Output == ServiceModelCheck {
    /// Asks the service whether its `$metadata` changed (one conditional request where it gives
    /// an `ETag` or a date, else the document and its hash) and, if so, what differs, classified
    /// against the queue. Changes nothing but the remembered validators; a change found is also
    /// announced (``StoreEvent/serviceModelChanged(_:)``). On the sync lane, between downloads and uploads.
    public static var checkService: StoreOperation<ServiceModelCheck> {
        StoreOperation(lane: .sync) { context throws(ODataError) in
            let offline = try context.dispatcher.requireFileAndService("checking the service's model")
            let findings = try offline.checkServiceModel(cancellation: context.handle.cancellation)
            try context.takeModelAdoptedInFile(findings, by: offline)
            if findings.check.changed { context.events.post(.serviceModelChanged(findings.check)) }
            return findings.check
        }
    }
}

/// How the app answers a change of the service's model that a download does not apply by itself
/// (anything but additive: see ``ModelDifference/Impact``). The store never switches models
/// without it.
public enum ServiceModelChoice: String, Sendable, CaseIterable {
    /// Upload the queue under the store's model first (the service may still take it), then adopt
    /// the new model and download in full. The default.
    case uploadFirst
    /// Adopt the new model now: tables rebuilt, queue and error archive kept (requests the new
    /// model refuses are refused by the service at the next upload), then a full download.
    case rebuild
    /// Move the queued requests the new model refuses to the error archive as
    /// ``ArchiveKind/modelChanged`` (fix and requeue them as any archived request), then as ``rebuild``.
    case archiveRefused
}

/// What adopting the service's model did.
public struct ServiceModelAdoption: Sendable {
    /// The check that decided it (before anything was done).
    public var check: ServiceModelCheck
    /// The upload of ``ServiceModelChoice/uploadFirst``; nil for the other choices.
    public var upload: UploadOutcome?
    /// Requests moved to the error archive as ``ArchiveKind/modelChanged``.
    public var archived: Int
    /// Whether the store now has the service's model (false when nothing had changed).
    public var adopted: Bool
    /// The full download under the new model.
    public var downloads: [DownloadOutcome]
}

extension StoreOperation where Output == ServiceModelAdoption {
    /// Adopts the service's current model the way `choice` says (see ``ServiceModelChoice``), in
    /// one transaction for the tables and the kept model; then downloads every defining request
    /// in full. With no change, does nothing.
    ///
    /// - Parameters:
    ///   - upload: how ``ServiceModelChoice/uploadFirst`` uploads (batching, progress).
    ///   - downloadProgress: told of the full download's pages, as ``DownloadOptions/progress``.
    public static func adoptServiceModel(_ choice: ServiceModelChoice = .uploadFirst, upload: UploadOptions = UploadOptions(),
                                         downloadProgress: (@Sendable (DownloadProgress) -> Bool)? = nil)
        -> StoreOperation<ServiceModelAdoption> {
        StoreOperation(lane: .sync) { context throws(ODataError) in
            var offline = try context.dispatcher.requireFileAndService("adopting the service's model")
            let cancellation = context.handle.cancellation
            var findings = try offline.checkServiceModel(cancellation: cancellation)
            try context.takeModelAdoptedInFile(findings, by: offline)
            let first = findings.check
            var adoption = ServiceModelAdoption(check: first, upload: nil, archived: 0, adopted: false, downloads: [])
            guard first.changed else { return adoption }
            // Refused before the queue is touched: a defining request the new model does not fit.
            if let document = findings.document { try offline.requireDefiningRequests(fit: document.model) }
            switch choice {
            case .uploadFirst:
                adoption.upload = try StoreOperation<UploadOutcome>.upload(upload).plan(context.dispatcher).work(context)
                findings = try offline.checkServiceModel(cancellation: cancellation)
            case .archiveRefused:
                adoption.archived = try offline.archiveRefused(first)
                findings = try offline.checkServiceModel(cancellation: cancellation)
            case .rebuild:
                break
            }
            guard let document = findings.document else { return adoption }
            offline = try context.migrateAndAdopt(offline, to: document)
            adoption.adopted = true
            // The download operation itself, in full and without checking the model again.
            var download = DownloadOptions(full: true, progress: downloadProgress)
            download.checksServiceModel = false
            adoption.downloads = try StoreOperation<[DownloadOutcome]>.download(download).plan(context.dispatcher).work(context)
            return adoption
        }
    }
}

extension StoreOperationContext {
    /// Takes the model the file keeps when another handle adopted the service's model since this
    /// one opened (the check found the file already on the service's document): this handle, and
    /// the requests after it, go on under it, with nothing migrated twice.
    func takeModelAdoptedInFile(_ findings: LocalStore.ServiceModelFindings, by offline: LocalStore) throws(ODataError) {
        guard findings.isAdoptedInFile else { return }
        try adopt(try offline.reloadedFromFile())
    }

    /// What a download does first: checks the service's model; a compatible change is migrated in
    /// place (the store and this work go on under the new model, and the download that follows
    /// fills the new columns), any other is announced and refused with ``ODataError/Code/metadata``.
    func checkServiceModelBeforeDownload() throws(ODataError) {
        let offline = try dispatcher.requireFileAndService("a download")
        // A store that cannot be written says so before anything is asked of the service.
        try offline.file.requireWritable()
        let findings = try offline.checkServiceModel(cancellation: handle.cancellation)
        try takeModelAdoptedInFile(findings, by: offline)
        var check = findings.check
        guard check.changed else { return }
        guard check.isCompatible, let document = findings.document else {
            events.post(.serviceModelChanged(check))
            let listed = check.differences.filter { $0.impact != .compatible }.prefix(5).map(\.description).joined(separator: "; ")
            throw ODataError(.metadata, "the service's $metadata changed in ways the store does not apply by itself (\(listed)); "
                             + "the store stays on its model until the app adopts the new one: upload first, rebuild, "
                             + "or archive the refused requests (adoptServiceModel)")
        }
        try migrateAndAdopt(offline, to: document)
        check.migrated = true
        events.post(.serviceModelChanged(check))
    }
}
