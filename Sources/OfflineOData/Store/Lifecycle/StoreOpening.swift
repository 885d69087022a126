#if canImport(Glibc)
import Glibc
#endif

/// The steps of opening an ``ODataStore``, run on its sync thread while requests are held:
/// the store file (reopened, or made from `$metadata`), the service, the router, and the first
/// download of a store that never had one.
struct StoreOpening {
    let store: ODataStore

    func run() throws(ODataError) -> RequestDispatcher {
        let options = store.options
        guard options.path != nil || options.serviceRoot != nil else {
            throw ODataError(.misuse, "a store needs a store file (path), a service root, or both")
        }
        if let path = options.path, path.isEmpty { throw ODataError(.misuse, "the store path is empty") }
        try options.requestLimits.checkForStore()
        try options.http.validate()
        let transport: HTTPTransport? = options.serviceRoot == nil ? nil : try HTTPTransport(options: options.http)
        /// The service's document, fetched at most once.
        var fetchedMetadata: String?
        func serviceMetadata() throws(ODataError) -> String {
            if let given = options.metadata {
                try MetadataSizeLimit.check(given.utf8.count, limit: options.http.maximumMetadataSize, source: "the $metadata document given")
                return given
            }
            if let fetchedMetadata { return fetchedMetadata }
            guard let root = options.serviceRoot, let transport else {
                throw ODataError(.misuse, "a new store file needs the $metadata document or a service root to fetch it from")
            }
            let text = try ServiceClient.fetchMetadata(serviceRoot: root, transport: transport, cancellation: store.openingCancellation)
            fetchedMetadata = text
            return text
        }

        var offline: LocalStore?
        if let path = options.path {
            let (file, created) = try openFile(at: path, options: options, metadata: serviceMetadata)
            offline = file
            if let findings = file.file.recoveryFindings { store.eventHub.postOpening(.uncleanShutdownChecked(findings)) }
            do throws(ODataError) {
                // The store's user first (docs/SHARED-DEVICE.md): another user's store is refused
                // before anything of theirs is read or downloaded.
                try file.file.withConnection { db throws(ODataError) in try StoreUserBinding.admit(options.user, in: db) }
                try adopt(options, into: file, created: created)
            } catch {
                file.close()
                throw error
            }
        }
        do throws(ODataError) {
            let model: MetadataModel
            let dialect: Dialect
            if let offline {
                model = offline.model
                dialect = offline.dialect
            } else {
                model = try MetadataReader.read(try serviceMetadata())
                dialect = options.dialect ?? (model.version.usesV4Protocol ? .v4 : .v2)
            }
            // The options' service root, or else the one the file keeps.
            var online: ServiceClient?
            var root = options.serviceRoot
            if root == nil { root = try offline?.serviceRoot() }
            if let root, !root.isEmpty {
                let serviceTransport: HTTPTransport
                if let transport { serviceTransport = transport } else { serviceTransport = try HTTPTransport(options: options.http) }
                online = try ServiceClient(serviceRoot: root, dialect: dialect, transport: serviceTransport)
            }
            let definingRequests = try offline?.definingRequests() ?? []
            let router = RequestRouter(mode: options.mode, model: model, dialect: dialect, definingRequests: definingRequests,
                                       hasOfflineStore: offline != nil, hasOnlineStore: online != nil)
            let dispatcher = RequestDispatcher(offline: offline, online: online, router: router, model: model, dialect: dialect)
            let neverDownloaded = definingRequests.filter { $0.lastDownload == nil }.map(\.name)
            if let offline, online != nil, options.downloadsOnFirstOpen, !neverDownloaded.isEmpty {
                try firstDownload(neverDownloaded, of: offline, dispatcher: dispatcher,
                                  isFirst: neverDownloaded.count == definingRequests.count)
            }
            return dispatcher
        } catch {
            offline?.close()
            throw error
        }
    }

    /// The store file at `path`, opened or made as ``ODataStore/Options/creation`` says, and whether it was made.
    private func openFile(at path: String, options: ODataStore.Options,
                          metadata: () throws(ODataError) -> String) throws(ODataError) -> (LocalStore, Bool) {
        switch options.creation {
        case .openOrCreate:
            let (file, created) = try LocalStore.openOrCreate(path: path, metadata: metadata, dialect: options.dialect,
                                                              definingRequests: options.definingRequests,
                                                              serviceRoot: options.serviceRoot,
                                                              acceptsEmptyFile: options.acceptsEmptyFile,
                                                              key: options.key)
            return (file, created)
        case .openExisting:
            guard access(path, F_OK) == 0 else { throw ODataError(.cannotOpen, "'\(path)' does not exist") }
            return (try LocalStore.open(path: path, key: options.key), false)
        case .createNew:
            guard let document = options.metadata else {
                throw ODataError(.misuse, "creating a new store file needs the $metadata document (Options.metadata)")
            }
            return (try LocalStore.create(path: path, metadata: document, dialect: options.dialect,
                                          definingRequests: options.definingRequests, serviceRoot: options.serviceRoot,
                                          acceptsEmptyFile: options.acceptsEmptyFile, indexes: options.indexes,
                                          key: options.key), true)
        }
    }

    /// Brings a reopened file up to the options: its defining requests, service root, HTTP settings and indexes.
    private func adopt(_ options: ODataStore.Options, into offline: LocalStore, created: Bool) throws(ODataError) {
        if !created {
            let stored = try offline.definingRequests()
            let wanted = options.definingRequests
            if !wanted.isEmpty, wanted.map({ [$0.name, $0.url, "\($0.retrievesStreams)"] })
                != stored.map({ [$0.name, $0.url, "\($0.retrievesStreams)"] }) {
                try offline.setDefiningRequests(wanted)
            }
            if let root = options.serviceRoot { try offline.useServiceRoot(root, saving: options.savesServiceRoot) }
        }
        offline.setHTTPOptions(options.http)
        offline.setRequestLimits(options.requestLimits)
        try offline.setStreamLimits(options.streamLimits)
        try offline.declareIndexes(options.indexes)
    }

    /// Downloads the defining requests that never were, before the held requests run, so they
    /// see the data; `isFirst` when the store had no download at all ("first download complete").
    private func firstDownload(_ names: [String], of offline: LocalStore, dispatcher: RequestDispatcher,
                               isFirst: Bool) throws(ODataError) {
        store.setOpeningState(.downloading)
        let eventHub = store.eventHub
        do throws(ODataError) {
            for name in names {
                _ = try offline.download(subset: [name], pageSize: store.options.pageSize,
                                         cancellation: store.openingCancellation) { progress in
                    eventHub.postProgress(.downloadProgress(progress))
                    return false
                }
                eventHub.postChanges(dispatcher.entitySets(ofDefiningRequest: name))
            }
        } catch {
            eventHub.post(.downloadFinished(error))
            throw error
        }
        eventHub.post(.downloadFinished(nil))
        if isFirst { eventHub.post(.firstDownloadComplete) }
    }
}
