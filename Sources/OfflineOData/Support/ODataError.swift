/// The one error type the engine throws.
///
/// Internal stages keep their own detail, but everything that leaves the module is an `ODataError`
/// with a ``Code`` that the C header (`ood_status`) and the Python binding mirror one to one.
/// Messages never contain credentials; they name the input that was wrong and, for text input
/// (URLs, `$filter`, `$metadata`), where it was wrong.
public struct ODataError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is. The raw values are the C `ood_status` values and never change.
    ///
    /// An open set, like `URLError.Code` and GRDB's `ResultCode`: a struct with a static member
    /// per code, so a later version can add codes without breaking anyone's `switch`. Switch on it
    /// as on an enum, with a `default:` for the codes a program does not handle (or does not know
    /// yet):
    ///
    /// ```swift
    /// switch error.code {
    /// case .network, .http: retryLater()
    /// case .aborted: break
    /// default: show(error)
    /// }
    /// ```
    public struct Code: RawRepresentable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        public let rawValue: Int32

        /// Any value, a code of a later version included; ``cName`` says `OOD_UNKNOWN` for one
        /// this version does not know.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// Something the engine did not expect: a bug, reported instead of a crash.
        public static let internalError = Code(rawValue: 1)
        /// The caller used the API wrongly: a NULL or empty argument, a closed handle, a wrong state.
        public static let misuse = Code(rawValue: 2)
        /// A store file could not be opened or created at the given path.
        public static let cannotOpen = Code(rawValue: 3)
        /// The file exists but is not an OfflineOData store (or is a store from a newer version).
        public static let notAStore = Code(rawValue: 4)
        /// SQLite reported an error while reading or writing the store.
        public static let storage = Code(rawValue: 5)
        /// A `$metadata` document is malformed or inconsistent.
        public static let metadata = Code(rawValue: 6)
        /// A URL or an expression in it is not well formed; ``ODataError/offset`` says where.
        public static let syntax = Code(rawValue: 7)
        /// A well-formed request names something the model does not have, or has the wrong types.
        public static let semantic = Code(rawValue: 8)
        /// The request is valid OData but this store does not do it (a function import offline).
        public static let unsupported = Code(rawValue: 9)
        /// The service could not be reached, or the connection failed.
        public static let network = Code(rawValue: 10)
        /// The service answered with an HTTP error status.
        public static let http = Code(rawValue: 11)
        /// The addressed entity or resource does not exist.
        public static let notFound = Code(rawValue: 12)
        /// A write breaks a constraint of the model (nullability, length, key).
        public static let constraint = Code(rawValue: 13)
        /// A callback asked to stop, or the operation was cancelled.
        public static let aborted = Code(rawValue: 14)
        /// The store is busy: a callback called back into its own store, or another upload of the
        /// same store file runs (in this process or another).
        public static let busy = Code(rawValue: 15)
        /// The store's key is wrong or missing: an encrypted store opened without its key or with
        /// another, or a plain store opened with a key (docs/ENCRYPTION.md). The file is untouched.
        public static let key = Code(rawValue: 16)
        /// The store belongs to another user (docs/SHARED-DEVICE.md): it was opened for a user
        /// other than the one it is bound to, or for none. Hand it over first
        /// (``ODataStore/handOver(path:key:to:newKey:choice:)``). The file is untouched.
        public static let otherUser = Code(rawValue: 17)

        /// Every code this version knows, in C order, each with its `ood_status` name.
        private static let known: [(code: Code, cName: String)] = [
            (.internalError, "OOD_ERROR"), (.misuse, "OOD_MISUSE"), (.cannotOpen, "OOD_CANTOPEN"),
            (.notAStore, "OOD_NOTASTORE"), (.storage, "OOD_STORAGE"), (.metadata, "OOD_METADATA"),
            (.syntax, "OOD_SYNTAX"), (.semantic, "OOD_SEMANTIC"), (.unsupported, "OOD_UNSUPPORTED"),
            (.network, "OOD_NETWORK"), (.http, "OOD_HTTP"), (.notFound, "OOD_NOTFOUND"),
            (.constraint, "OOD_CONSTRAINT"), (.aborted, "OOD_ABORTED"), (.busy, "OOD_BUSY"),
            (.key, "OOD_KEY"), (.otherUser, "OOD_OTHER_USER"),
        ]

        /// The codes this version knows (a later version may add more).
        public static var allCases: [Code] { known.map(\.code) }

        /// Whether this version knows the code (a raw value from a newer library may not be).
        public var isKnown: Bool { Self.known.contains { $0.code == self } }

        /// The name of the matching `ood_status` value in `offline_odata.h`; `OOD_UNKNOWN` for a
        /// code this version does not know.
        public var cName: String { Self.known.first { $0.code == self }?.cName ?? "OOD_UNKNOWN" }

        public var description: String { cName }
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
    /// A page of an encrypted store failed its authentication (docs/ENCRYPTION.md): never taken
    /// for a missing value.
    var isAuthenticationFailure = false

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
