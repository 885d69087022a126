import ArgumentParser
@_spi(Tool) import OfflineOData

/// `--mode`: which store answers a request (the engine's ``WorkingMode``).
enum ToolMode: String, ExpressibleByArgument, CaseIterable {
    case offline, online, mixed

    var workingMode: WorkingMode {
        switch self {
        case .offline: .offline
        case .online: .online
        case .mixed: .mixed
        }
    }
}

/// Opens the existing store file at `path` for one command, once, and waits until it is open.
///
/// Only a store that is there is opened (``StoreFileCreation/openExisting``): the engine would
/// otherwise make a missing file a new store (fetching `$metadata`), so a mistyped path is refused
/// by name and leaves nothing behind. Nothing is downloaded on opening. `service`, when given,
/// says how to reach the service: its credentials and TLS, and its root for this command (kept
/// in the file only with `--save-service`); otherwise the file's root is used.
///
/// A store its last user left open (a crash) gets SQLite's quick check on opening: a damaged one
/// fails, and a sound one is reported on standard error, so the user knows it happened.
func openStore(path: String, mode: WorkingMode = .mixed, service: ServiceOptions? = nil,
               serviceRoot: String? = nil) throws(ODataError) -> ODataStore {
    var options = ODataStore.Options(path: path, serviceRoot: service?.serviceRoot ?? serviceRoot)
    options.creation = .openExisting
    options.mode = mode
    options.downloadsOnFirstOpen = false
    if let service {
        options.http = try service.httpOptions()
        options.savesServiceRoot = service.saveService
    }
    return try openStore(options)
}

/// Opens a store with `options` and waits until it is open; closed again when opening failed.
func openStore(_ options: ODataStore.Options) throws(ODataError) -> ODataStore {
    var options = options
    if options.key == nil { options.key = ToolKey.current }
    if options.user == nil { options.user = ToolStoreUser.current }
    let store = ODataStore.open(options)
    let status: StoreStatus
    do throws(ODataError) {
        status = try store.waitUntilOpen()
    } catch {
        store.close()
        throw error
    }
    if status.wasNotClosedCleanly, let path = options.path {
        var standardError = StandardErrorStream()
        print("note: '\(path)' was not closed cleanly (its last user ended with it open); SQLite's quick check "
              + "found it sound", to: &standardError)
    }
    return store
}
