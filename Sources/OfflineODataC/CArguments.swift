import COfflineODataHeader
import Glibc
@_spi(Tool) import OfflineOData

// What the C functions of the store API share: checked arguments and owned strings.

/// The store-API store behind a handle, or the misuse error.
func requireAPIStore(_ function: String, _ store: OpaquePointer?) throws(ODataError) -> ODataStore {
    guard let store else { throw ODataError(.misuse, "\(function): store is NULL") }
    return try StoreHandle.from(store).requireStore(function)
}

/// The store behind a handle for a function that talks to the service, or the misuse error
/// (also when the store's file keeps no service root and no options gave one).
func requireServiceStore(_ function: String, _ store: OpaquePointer?) throws(ODataError) -> ODataStore {
    guard let store else { throw ODataError(.misuse, "\(function): store is NULL") }
    return try StoreHandle.from(store).requireService(function)
}

/// Hands `text` to C as an owned string through `out`.
func handOut(_ text: String, to out: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) throws(ODataError) {
    guard let copy = ownedCString(text) else { throw ODataError(.internalError, "out of memory") }
    out.pointee = copy
}

/// The text of a C string argument, or the misuse error naming it.
func text(_ function: String, _ name: String, _ pointer: UnsafePointer<CChar>?) throws(ODataError) -> String {
    guard let pointer else { throw ODataError(.misuse, "\(function): \(name) is NULL") }
    return String(cString: pointer)
}

/// More entries than this means a list was not NULL-terminated, not that a caller needs them.
private let maximumListEntries = 1_000

/// The strings of a NULL-terminated array (`const char *const *`), NULL giving nil: request
/// headers, the names of defining requests.
func stringList(_ function: String, _ name: String,
                _ list: UnsafePointer<UnsafePointer<CChar>?>?) throws(ODataError) -> [String]? {
    guard let list else { return nil }
    var result: [String] = []
    while let entry = list[result.count] {
        result.append(String(cString: entry))
        guard result.count < maximumListEntries else {
            throw ODataError(.misuse, "\(function): more than \(maximumListEntries) \(name): is the array NULL-terminated?")
        }
    }
    return result
}

/// A C callback and its payload, carried to the thread that calls it.
struct CCompletion: @unchecked Sendable {
    let function: ood_completion?
    let payload: UnsafeMutableRawPointer?

    /// Calls the callback with `outcome`, after setting this thread's error state to match.
    func call(_ outcome: Result<OpaquePointer?, ODataError>) {
        guard let function else { return }
        switch outcome {
        case .success(let result):
            function(succeed(), result, payload)
        case .failure(let error):
            function(fail(error), nil, payload)
        }
    }
}
