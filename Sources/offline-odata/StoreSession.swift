import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import OfflineOData

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

/// Opens an ``ODataStore`` on the existing store file at `path`, for one command.
///
/// The file is checked first (it must exist and hold a service model: the engine would otherwise
/// make a new store, fetching `$metadata` from the service). The service root is `serviceRoot`
/// when given, else the one the store was created with: an ``ODataStore`` does not take the
/// file's own service root by itself, and without one it has no online store. Nothing is
/// downloaded on opening.
func openODataStore(path: String, mode: WorkingMode, serviceRoot: String?,
                    http: HTTPOptions = HTTPOptions()) throws(ODataError) -> ODataStore {
    guard fileExists(path) else { throw ODataError(.cannotOpen, "'\(path)' does not exist") }
    let file = try OfflineStore.open(path: path)
    let storedRoot: String?
    do throws(ODataError) {
        storedRoot = try file.serviceRoot()
    } catch {
        file.close()
        throw error
    }
    file.close()
    var options = ODataStore.Options(path: path, serviceRoot: serviceRoot ?? storedRoot.flatMap { $0.isEmpty ? nil : $0 })
    options.mode = mode
    options.downloadsOnFirstOpen = false
    options.http = http
    return ODataStore.open(options)
}

/// Waits on the calling thread for the answer of one of ``ODataStore``'s completion-closure
/// operations (those without a blocking form, such as `route`).
func waitForAnswer<T: Sendable>(
    _ start: (@escaping @Sendable (Result<T, ODataError>) -> Void) -> RequestHandle
) throws(ODataError) -> T {
    let box = AnswerBox<T>()
    _ = start { box.put($0) }
    return try box.take().get()
}

/// One answer, handed from a store thread to the waiting thread.
private final class AnswerBox<T: Sendable>: @unchecked Sendable {
    private let semaphore: UnsafeMutablePointer<sem_t>
    /// Written once before the semaphore is posted, read after it is taken.
    private var result: Result<T, ODataError>?

    init() {
        semaphore = .allocate(capacity: 1)
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    func put(_ value: Result<T, ODataError>) {
        result = value
        sem_post(semaphore)
    }

    func take() -> Result<T, ODataError> {
        while sem_wait(semaphore) != 0 {}  // EINTR: wait again
        return result!
    }
}
