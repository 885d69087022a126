internal import CLibXML2
#if canImport(Glibc)
import Glibc
#endif

/// A `$metadata` document as a stream of element starts, element ends and texts, for the CSDL
/// reader's recursive descent.
///
/// libxml2's SAX2 callbacks record the document a part at a time into flat lists
/// (``XMLRecorder``), and the stream walks those lists, taking the next part when it has walked
/// them all. That costs libxml2 about half of what its `xmlTextReader` took (no tree is built and
/// freed), and the lists stay small. A large document is parsed on a thread of its own a few parts
/// ahead (``XMLParseAhead``), so the parse and the walk overlap; a small one is parsed inline,
/// where a thread would cost more than it saves. Both give the same events.
///
/// Safety settings, all on every read: `XML_PARSE_NONET` (no network, ever), `NOERROR` and
/// `NOWARNING`, no entity substitution and no DTD loading. libxml2 prints nothing to the host's
/// stderr: for the lifetime of the stream every error libxml2 raises on the calling thread (and on
/// the parsing thread, while it runs) goes to a capture (``ThreadXMLErrorRouting``), and the
/// thread's previous handlers are restored afterwards. No process-wide handler is installed. A
/// part in which libxml2 finds the document malformed stops the read with libxml2's message,
/// line and column, before any of that part is walked.
final class XMLStream {
    enum Event {
        case elementStart
        case elementEnd
        case text
        case endOfDocument
    }

    /// How the parse runs beside the walk.
    enum Parsing {
        case inline
        /// On a thread of its own (``XMLParseAhead``).
        case ahead
    }

    /// Turns a line (and what to look for on it) into a column, for error messages.
    let locator: SourceColumnLocator
    private let errorRouting: ThreadXMLErrorRouting
    private let recorder: XMLRecorder
    /// The parsing thread, for a document parsed ahead; nil when parts are recorded inline.
    private let parseAhead: XMLParseAhead?
    /// The part being walked (an empty one before the first).
    private var part = RecordedPart()
    /// Where the walk is, behind a `let` pointer so that reading it takes no exclusivity check.
    private let cursor: UnsafeMutablePointer<Cursor>

    private struct Cursor {
        /// Index of the current event in the part's events.
        var position = -1
        /// The current element (the one a start, an empty element or an end belongs to).
        var element: RecordedElement?
        var isAtStart = false
        var isEmpty = false
        /// The current text's offset in the part's bytes.
        var textOffset = 0
        /// Elements started and not ended, outermost first (their events may be in earlier parts).
        var open = RawList<RecordedElement>()
        /// Set once the document has ended (or a read failed); `next` reports the end from then on.
        var isDone = false
        /// The lists of the part being walked, valid until the part is given back.
        var events = UnsafeBufferPointer<RecordedEvent>(start: nil, count: 0)
        var elements = UnsafeBufferPointer<RecordedElement>(start: nil, count: 0)
        var attributes = UnsafeBufferPointer<RecordedAttribute>(start: nil, count: 0)
        var bytes = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    }

    /// The stream owns nothing of `bytes`; they must outlive it (the parser and the locator read them).
    init(bytes: UnsafeRawBufferPointer, parsing: Parsing, chunkSize: Int = XMLRecorder.defaultChunkSize) throws(ODataError) {
        _ = libxml2Initialization
        locator = SourceColumnLocator(bytes: bytes)
        guard bytes.count > 0 else { throw ODataError(.metadata, "the $metadata document is empty", line: 1, column: 1) }
        guard bytes.count < Int(Int32.max), let base = bytes.baseAddress else {
            throw ODataError(.metadata, "the $metadata document is too large (\(bytes.count) bytes)")
        }
        errorRouting = ThreadXMLErrorRouting()
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_BIG_LINES.rawValue | XML_PARSE_NOCDATA.rawValue)
        guard let recorder = XMLRecorder(input: base.assumingMemoryBound(to: CChar.self), count: bytes.count, options: options,
                                         chunkSize: chunkSize) else {
            throw ODataError(.metadata, "libxml2 could not create a parser")
        }
        self.recorder = recorder
        parseAhead = parsing == .ahead ? XMLParseAhead(recorder: recorder) : nil
        cursor = .allocate(capacity: 1)
        cursor.initialize(to: Cursor())
    }

    deinit {
        // The parsing thread ends before the recorder it uses goes.
        parseAhead?.finish()
        cursor.pointee.open.release()
        cursor.deinitialize(count: 1)
        cursor.deallocate()
    }

    /// Advances to the next element start, element end or text.
    func next() throws(ODataError) -> Event {
        if cursor.pointee.isDone { return .endOfDocument }
        // The current element is over once the walk moves on from an empty element or an end.
        if !cursor.pointee.isAtStart || cursor.pointee.isEmpty { cursor.pointee.element = nil }
        if cursor.pointee.isAtStart && !cursor.pointee.isEmpty, let element = cursor.pointee.element {
            guard cursor.pointee.open.append(element) else { throw outOfMemory() }
        }
        cursor.pointee.isAtStart = false
        var position = cursor.pointee.position + 1
        if position >= cursor.pointee.events.count {
            position = 0
            repeat {
                guard try takeNextPart() else {
                    cursor.pointee.isDone = true
                    return .endOfDocument
                }
            } while cursor.pointee.events.isEmpty
        }
        // A part never ends with a start whose end is unseen (``XMLRecorder/recordPart(into:capture:)``),
        // so an empty element shows as one here.
        cursor.pointee.position = position
        switch eventAt(position) {
        case .start(let index)?, .empty(let index)?:
            guard let element = elementAt(index) else { return try endOfRecording() }
            cursor.pointee.element = element
            cursor.pointee.isAtStart = true
            if case .empty? = eventAt(position) { cursor.pointee.isEmpty = true } else { cursor.pointee.isEmpty = false }
            return .elementStart
        case .end?:
            guard let element = cursor.pointee.open.removeLast() else { return try endOfRecording() }
            cursor.pointee.element = element
            return .elementEnd
        case .text(let offset)?:
            cursor.pointee.textOffset = offset
            return .text
        case nil:
            return try endOfRecording()
        }
    }

    /// Moves on to the next part; false when the last one has been walked. Throws what libxml2
    /// found wrong in the part (before any of it is walked).
    private func takeNextPart() throws(ODataError) -> Bool {
        if part.outcome.isLast { return false }
        if let parseAhead {
            part = parseAhead.next(returning: part)
        } else {
            recorder.recordPart(into: part, capture: errorRouting.capture)
        }
        cursor.pointee.events = part.lists.events.buffer
        cursor.pointee.elements = part.lists.elements.buffer
        cursor.pointee.attributes = part.lists.attributes.buffer
        cursor.pointee.bytes = part.lists.bytes.buffer
        let outcome = part.outcome
        if let refusal = outcome.refusal {
            cursor.pointee.isDone = true
            throw ODataError(.metadata, refusal, line: max(outcome.parserPosition.line, 1))
        }
        if outcome.ranOutOfMemory { throw outOfMemory() }
        // The calling thread's capture holds what creating the parser raised.
        if let captured = errorRouting.capture.first ?? outcome.error {
            cursor.pointee.isDone = true
            throw XMLStream.wellFormednessError(captured, parserPosition: outcome.parserPosition)
        }
        if outcome.isFinished && !outcome.isWellFormed {
            cursor.pointee.isDone = true
            throw ODataError(.metadata, "the document is not well-formed XML", line: max(outcome.parserPosition.line, 1))
        }
        return true
    }

    /// A recording that does not add up (which libxml2's checks rule out) ends the read.
    private func endOfRecording() throws(ODataError) -> Event {
        cursor.pointee.isDone = true
        throw ODataError(.metadata, "the document is not well-formed XML", line: max(part.outcome.parserPosition.line, 1))
    }

    private func outOfMemory() -> ODataError {
        cursor.pointee.isDone = true
        return ODataError(.metadata, "the $metadata document is too large to read (out of memory)")
    }

    private func eventAt(_ index: Int) -> RecordedEvent? {
        let events = cursor.pointee.events
        return index >= 0 && index < events.count ? events[index] : nil
    }

    private func elementAt(_ index: Int) -> RecordedElement? {
        let elements = cursor.pointee.elements
        return index >= 0 && index < elements.count ? elements[index] : nil
    }

    /// The NUL-terminated value or text at `offset` of the part's bytes.
    private func bytes(at offset: Int) -> UnsafePointer<UInt8>? {
        let bytes = cursor.pointee.bytes
        guard offset >= 0, offset < bytes.count, let base = bytes.baseAddress else { return nil }
        return base + offset
    }

    private var current: RecordedElement? { cursor.pointee.element }

    var isEmptyElement: Bool { cursor.pointee.isAtStart && cursor.pointee.isEmpty }

    /// 1-based line of the current element's start tag (where libxml2 saw it end).
    var line: Int { current?.line ?? 0 }

    /// The namespace kind of the current element.
    var namespaceKind: XMLNamespaceKind { current?.namespaceKind ?? .none }

    /// The namespace URI of the current element, for messages.
    var namespaceURI: String? { current?.namespaceURI.map { String(cString: $0) } }

    /// The local name of the current element as libxml2 keeps it (valid as long as the stream).
    var localNamePointer: UnsafePointer<UInt8>? { current?.localName }

    /// The CSDL element the current element's local name is (whatever its namespace), if any.
    var elementName: CSDLElement? { current?.kind }

    /// The local name of the current element as a `String` (for messages and kept data).
    var localName: String {
        guard let name = localNamePointer else { return "" }
        return String(cString: name)
    }

    /// The prefixed name (`edmx:Edmx`) of the current element, for messages.
    var qualifiedTagName: String {
        let local = localName
        if let prefix = current?.prefix { return String(cString: prefix) + ":" + local }
        return local
    }

    /// The bytes of the current text (NUL-terminated, valid until the next read).
    var textPointer: UnsafePointer<UInt8>? { bytes(at: cursor.pointee.textOffset) }

    /// The current text.
    var text: String {
        guard let bytes = textPointer else { return "" }
        return String(cString: bytes)
    }

    /// Calls `body` for each attribute of the current element.
    func forEachAttribute(_ body: (XMLAttributeView) throws(ODataError) -> Void) throws(ODataError) {
        guard cursor.pointee.isAtStart, let current else { return }
        let attributes = cursor.pointee.attributes
        let end = current.firstAttribute + current.attributeCount
        guard current.firstAttribute >= 0, end <= attributes.count else { return }
        for index in current.firstAttribute..<end {
            let attribute = attributes[index]
            guard let value = bytes(at: attribute.valueOffset) else { continue }
            try body(XMLAttributeView(attribute: attribute, value: value))
        }
    }

    /// Calls `body` at each child element of the current element (which must be a start), and
    /// returns after the current element's end. `body` must consume the child (read its children
    /// or call ``skipElement()``). Text children are ignored.
    func forEachChild(_ body: () throws(ODataError) -> Void) throws(ODataError) {
        if isEmptyElement { return }
        while true {
            switch try next() {
            case .elementStart: try body()
            case .elementEnd: return
            case .text: continue
            case .endOfDocument: throw ODataError(.metadata, "the document ends inside an element", line: line)
            }
        }
    }

    /// Consumes the current element and everything inside it.
    func skipElement() throws(ODataError) {
        if !cursor.pointee.isAtStart || cursor.pointee.isEmpty { return }
        var depth = 1
        while depth > 0 {
            switch try next() {
            case .elementStart where !cursor.pointee.isEmpty: depth += 1
            case .elementEnd: depth -= 1
            case .endOfDocument: throw ODataError(.metadata, "the document ends inside an element", line: line)
            default: continue
            }
        }
    }

    /// An error at the current element (or one of its attributes), with line and column.
    func error(_ message: String, attribute: String? = nil) -> ODataError {
        let place = locator.locate(line: line, element: localName, attribute: attribute)
        return ODataError(.metadata, message, line: place.line, column: place.column)
    }

    private static func wellFormednessError(_ captured: CapturedXMLError, parserPosition: (line: Int, column: Int)) -> ODataError {
        if captured.line > 0 {
            return ODataError(.metadata, "the document is not well-formed XML: \(captured.message)",
                              line: captured.line, column: captured.column > 0 ? captured.column : nil)
        }
        // Errors raised without a parser context (encoding conversion) carry no position: the
        // parser's own position is the nearest there is.
        return ODataError(.metadata, "the document is not well-formed XML: \(captured.message)",
                          line: max(parserPosition.line, 1), column: parserPosition.column > 0 ? parserPosition.column : nil)
    }
}

/// `xmlInitParser()` exactly once per process, before the first parse (thread-safe lazy global).
private let libxml2Initialization: Void = { xmlInitParser() }()
