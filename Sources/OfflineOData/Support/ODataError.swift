/// The one error type the engine throws.
///
/// Internal stages keep their own detail, but everything that leaves the module is an `ODataError`
/// with a ``Code`` that the C header (`ood_status`) and the Python binding mirror one to one.
/// Messages never contain credentials; they name the input that was wrong and, for text input
/// (URLs, `$filter`, `$metadata`), where it was wrong.
public struct ODataError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is. The raw values are the C `ood_status` values and never change.
    public enum Code: Int32, Sendable, CaseIterable {
        /// Something the engine did not expect: a bug, reported instead of a crash.
        case internalError = 1
        /// The caller used the API wrongly: a NULL or empty argument, a closed handle, a wrong state.
        case misuse = 2
        /// A store file could not be opened or created at the given path.
        case cannotOpen = 3
        /// The file exists but is not an OfflineOData store (or is a store from a newer version).
        case notAStore = 4
        /// SQLite reported an error while reading or writing the store.
        case storage = 5
        /// A `$metadata` document is malformed or inconsistent.
        case metadata = 6
        /// A URL or an expression in it is not well formed; ``ODataError/offset`` says where.
        case syntax = 7
        /// A well-formed request names something the model does not have, or has the wrong types.
        case semantic = 8
        /// The request is valid OData but this store does not do it (a function import offline).
        case unsupported = 9
        /// The service could not be reached, or the connection failed.
        case network = 10
        /// The service answered with an HTTP error status.
        case http = 11
        /// The addressed entity or resource does not exist.
        case notFound = 12
        /// A write breaks a constraint of the model (nullability, length, key).
        case constraint = 13
        /// A callback asked to stop, or the operation was cancelled.
        case aborted = 14
        /// The store is busy: a callback called back into its own store, or another upload of the
        /// same store file runs (in this process or another).
        case busy = 15

        /// The name of the matching `ood_status` value in `offline_odata.h`.
        public var cName: String {
            switch self {
            case .internalError: "OOD_ERROR"
            case .misuse: "OOD_MISUSE"
            case .cannotOpen: "OOD_CANTOPEN"
            case .notAStore: "OOD_NOTASTORE"
            case .storage: "OOD_STORAGE"
            case .metadata: "OOD_METADATA"
            case .syntax: "OOD_SYNTAX"
            case .semantic: "OOD_SEMANTIC"
            case .unsupported: "OOD_UNSUPPORTED"
            case .network: "OOD_NETWORK"
            case .http: "OOD_HTTP"
            case .notFound: "OOD_NOTFOUND"
            case .constraint: "OOD_CONSTRAINT"
            case .aborted: "OOD_ABORTED"
            case .busy: "OOD_BUSY"
            }
        }
    }

    public var code: Code
    public var message: String
    /// For errors in text input: the 0-based character offset of the fault in the original text.
    public var offset: Int?
    /// For errors in documents (`$metadata`): the 1-based line and column of the fault.
    public var line: Int?
    public var column: Int?
    /// For errors the service answered: its HTTP status (`412`, `500`, ...).
    public var httpStatus: Int?
    /// For errors the service answered: the headers of its answer (`ETag`, `Retry-After`, ...).
    public var httpHeaders: [HTTPHeader] = []
    /// SQLite ran out of room (`SQLITE_FULL`): a download names the defining request it was writing.
    var isDiskFull = false

    public init(_ code: Code, _ message: String, offset: Int? = nil, line: Int? = nil, column: Int? = nil) {
        self.code = code
        self.message = message
        self.offset = offset
        self.line = line
        self.column = column
    }

    public var description: String {
        if let line {
            if let column { return "\(message) (line \(line), column \(column))" }
            return "\(message) (line \(line))"
        }
        if let offset { return "\(message) (at offset \(offset))" }
        return message
    }
}
