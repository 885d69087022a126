import COfflineODataHeader
import Glibc
@_spi(Tool) import OfflineOData

/// The per-thread error state behind `ood_error_message()` and `ood_error_offset()`.
///
/// Held in a pthread key so that each thread sees the outcome of its own last call; the message is
/// a C string owned here, valid until the next call on the same thread replaces it.
final class ThreadError {
    private(set) var message: UnsafeMutablePointer<CChar>?
    private(set) var offset: Int = -1
    /// The HTTP status of a refusal by the service, else 0.
    private(set) var httpStatus: Int32 = 0
    /// The headers of the service's refusal (`ood_error_header`); nil when there are none.
    private(set) var headers: CHeaderValues?

    func set(message text: String, offset: Int, httpStatus: Int? = nil, headers: [HTTPHeader] = []) {
        free(message)
        message = strdup(text)
        self.offset = offset
        self.httpStatus = Int32(clamping: httpStatus ?? 0)
        self.headers = headers.isEmpty ? nil : CHeaderValues(headers)
    }

    deinit { free(message) }

    /// This thread's error state, created on first use and released when the thread ends.
    static var current: ThreadError {
        if let raw = pthread_getspecific(threadErrorKey) {
            return Unmanaged<ThreadError>.fromOpaque(raw).takeUnretainedValue()
        }
        let state = ThreadError()
        pthread_setspecific(threadErrorKey, Unmanaged.passRetained(state).toOpaque())
        return state
    }
}

private let threadErrorKey: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key) { raw in
        guard let raw else { return }
        Unmanaged<ThreadError>.fromOpaque(raw).release()
    }
    return key
}()

let notAnErrorMessage = "not an error"

/// The C status for an engine error code: the raw values are shared by construction.
func cStatus(_ code: ODataError.Code) -> ood_status { ood_status(rawValue: UInt32(code.rawValue)) }

/// Records a success for this thread and returns `OOD_OK`.
func succeed() -> ood_status {
    ThreadError.current.set(message: notAnErrorMessage, offset: -1)
    return OOD_OK
}

/// Records `error` for this thread and returns its status.
func fail(_ error: ODataError) -> ood_status {
    ThreadError.current.set(message: error.description, offset: error.offset ?? -1, httpStatus: error.httpStatus,
                            headers: error.httpHeaders)
    return cStatus(error.code)
}

/// Records a misuse (a NULL or invalid argument) and returns `OOD_MISUSE`.
func misuse(_ message: String) -> ood_status { fail(ODataError(.misuse, message)) }

/// Runs one C entry point's body: every error becomes a status and a per-thread message, so no
/// Swift error ever crosses the boundary.
func bridge(_ body: () throws(ODataError) -> Void) -> ood_status {
    do {
        try body()
        return succeed()
    } catch {
        return fail(error)
    }
}

@_cdecl("ood_error_message")
public func cErrorMessage() -> UnsafePointer<CChar>? {
    if let message = ThreadError.current.message { return UnsafePointer(message) }
    return UnsafePointer(staticCString(notAnErrorMessage))
}

@_cdecl("ood_error_offset")
public func cErrorOffset() -> Int {
    ThreadError.current.offset
}

@_cdecl("ood_error_http_status")
public func cErrorHTTPStatus() -> Int32 {
    ThreadError.current.httpStatus
}

@_cdecl("ood_error_header")
public func cErrorHeader(_ name: UnsafePointer<CChar>?) -> UnsafePointer<CChar>? {
    guard let name, let headers = ThreadError.current.headers else { return nil }
    return headers.value(name)
}

@_cdecl("ood_string_free")
public func cStringFree(_ string: UnsafeMutablePointer<CChar>?) {
    free(string)
}

@_cdecl("ood_status_name")
public func cStatusName(_ status: Int32) -> UnsafePointer<CChar>? {
    let name: String
    if status == 0 {
        name = "OOD_OK"
    } else {
        name = ODataError.Code(rawValue: status).cName  // OOD_UNKNOWN for a value no code has
    }
    return UnsafePointer(staticCString(name))
}
