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

/// Opens the existing store file at `path` for a local command.
///
/// The engine would create a missing file as an empty store (then complain that it has no
/// service model), so a mistyped path is refused here, by name, and leaves nothing behind.
///
/// A store its last user left open (a crash) gets SQLite's quick check on opening: a damaged one
/// fails, and a sound one is reported on standard error, so the user knows it happened.
func openExistingStore(path: String) throws(ODataError) -> LocalStore {
    guard fileExists(path) else { throw ODataError(.cannotOpen, "'\(path)' does not exist") }
    let store = try LocalStore.open(path: path)
    if store.file.recoveryFindings != nil {
        var standardError = StandardErrorStream()
        print("note: '\(path)' was not closed cleanly (its last user ended with it open); SQLite's quick check "
              + "found it sound", to: &standardError)
    }
    return store
}

/// Opens an ``ODataStore`` on the existing store file at `path`, for one command.
///
/// The file is checked first (it must exist and hold a service model: the engine would otherwise
/// make a new store, fetching `$metadata` from the service). The service root is `serviceRoot`
/// when given (kept in the file only with `savesServiceRoot`), else the file's. Nothing is
/// downloaded on opening.
func openODataStore(path: String, mode: WorkingMode, serviceRoot: String?, savesServiceRoot: Bool = false,
                    http: HTTPOptions = HTTPOptions()) throws(ODataError) -> ODataStore {
    // Refuses a missing file, one that is not a store, or one without a model, before the engine would make one.
    try openExistingStore(path: path).close()
    var options = ODataStore.Options(path: path, serviceRoot: serviceRoot)
    options.mode = mode
    options.downloadsOnFirstOpen = false
    options.http = http
    options.savesServiceRoot = savesServiceRoot
    return ODataStore.open(options)
}
