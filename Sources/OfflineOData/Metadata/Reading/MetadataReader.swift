/// Reads a `$metadata` document into a validated ``MetadataModel``.
///
/// ```swift
/// let model = try MetadataReader.read(bytes)
/// let agency = model.entityType(ofEntitySet: "TravelagencyCollection")
/// ```
///
/// The document is read in one pass over the bytes (libxml2's SAX2 parser, network access off,
/// nothing printed), then checked as a whole: a document is either accepted with
/// every reference resolved, or rejected with one ``ODataError`` of code `.metadata` that names
/// the line, the column and the fault. It is never half accepted.
///
/// Limits, each an error of code `.metadata` rather than a crash or an exhausted host: a document
/// must be smaller than 2 GiB (2,147,483,647 bytes, libxml2's limit: "the $metadata document is too
/// large"); entity references in attribute values may expand to at most 64 MiB plus 16 bytes per
/// byte of the document, nested at most 40 deep (see `XMLRecording.expansionBudget`). Reading takes
/// time linear in the document and in what its references expand to.
@_spi(Tool) public enum MetadataReader {
    /// Choices about what a reader accepts.
    @_spi(Tool) public struct Options: Sendable, Hashable {
        /// Whether a type name in the reserved `Edm` namespace that no OData version defines
        /// (`Edm.Float`, seen in real SAP test services) is kept as ``TypeReference/Kind/unknownEdmType``
        /// instead of rejecting the document. On by default: such a name cannot be a dangling
        /// reference to one of the document's own types, and losing the whole service for one
        /// property helps nobody; a store refuses to use the property instead.
        package var acceptsUnknownEdmTypes: Bool = true
        /// Whether defects that real services publish and that leave the rest of the model usable
        /// are errors. Off by default: they are then listed in ``MetadataModel/diagnostics`` and
        /// the model holds nothing that depends on them. See ``MetadataModel/diagnostics``.
        @_spi(Tool) public var isStrict: Bool = false

        @_spi(Tool) public init(acceptsUnknownEdmTypes: Bool = true, isStrict: Bool = false) {
            self.acceptsUnknownEdmTypes = acceptsUnknownEdmTypes
            self.isStrict = isStrict
        }
    }

    /// Reads and validates a document given as bytes (UTF-8 or any encoding its XML declaration names;
    /// a UTF-8 byte order mark is fine).
    @_spi(Tool) public static func read(_ bytes: [UInt8], options: Options = Options()) throws(ODataError) -> MetadataModel {
        let result: Result<MetadataModel, ODataError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(ODataError) in try read(buffer, options: options) }
        }
        return try result.get()
    }

    /// Reads and validates a document given as text.
    @_spi(Tool) public static func read(_ text: String, options: Options = Options()) throws(ODataError) -> MetadataModel {
        try read(Array(text.utf8), options: options)
    }

    /// Reads and validates a document in memory that stays valid for the duration of the call.
    package static func read(_ bytes: UnsafeRawBufferPointer, options: Options = Options()) throws(ODataError) -> MetadataModel {
        try read(bytes, options: options, threads: .bySize)
    }

    /// How many threads a read uses (package-wide: the tests and the fuzz harness compare the ways).
    package enum Threads: Sendable {
        /// Two for a document of ``twoThreadsFromSize`` bytes or more, else one.
        case bySize
        /// One: the parse, the reading and every check take turns.
        case one
        /// Two: the parse runs ahead of the reading (``XMLParseAhead``) and the checks that only
        /// read the model run beside the steps after them (``DetachedCheck``).
        case two
    }

    /// Documents from this size on are read with two threads by default: a few chunks' worth;
    /// below it, starting threads costs more than the overlap saves.
    static let twoThreadsFromSize = 1 << 18

    /// Reads with as many threads as asked, parsing `chunkSize` bytes of input at a time (the
    /// tests and the fuzz harness make it small, so that parts meet every boundary case).
    package static func read(_ bytes: UnsafeRawBufferPointer, options: Options, threads: Threads,
                             chunkSize: Int = XMLRecorder.defaultChunkSize) throws(ODataError) -> MetadataModel {
        let large = bytes.count >= twoThreadsFromSize
        let twoThreads = threads == .two || (threads == .bySize && large)
        let stream = try XMLStream(bytes: bytes, parsing: twoThreads ? .ahead : .inline, chunkSize: chunkSize)
        let reader = CSDLReader(stream: stream, options: options)
        var document = try reader.readDocument()
        let (version, edmxVersion, references) = (document.version, document.edmxVersion, document.references)
        // The validator takes the schemas over (see `ModelValidator.init`), so it finishes them in place.
        var validator = ModelValidator(document: &document, locator: stream.locator, options: options, detachesChecks: twoThreads)
        validator.diagnostics = reader.diagnostics
        let schemas = try validator.validate()
        return MetadataModel(version: version, edmxVersion: edmxVersion, schemas: schemas, references: references,
                             diagnostics: validator.diagnostics, declarations: validator.declarations,
                             operations: validator.operationIndex.overloads)
    }
}
