internal import CLibXML2
#if canImport(Glibc)
import Glibc
#endif

/// A `$metadata` document as a stream of element starts, element ends and texts, for the CSDL
/// reader's recursive descent.
///
/// The document is parsed whole, once, by libxml2's SAX2 callbacks into flat lists
/// (``XMLRecorder``); the stream then walks those lists. That costs libxml2 about half of what its
/// `xmlTextReader` took (no tree is built and freed), and skipping an element is a jump.
///
/// Safety settings, all on every read: `XML_PARSE_NONET` (no network, ever), `NOERROR` and
/// `NOWARNING`, no entity substitution and no DTD loading. libxml2 prints nothing to the host's
/// stderr: for the lifetime of the stream every error libxml2 raises on the calling thread goes to
/// a capture (``ThreadXMLErrorRouting``), and the thread's previous handlers are restored
/// afterwards. No process-wide handler is installed. A document libxml2 finds malformed is
/// rejected before any of it is read, with libxml2's message, line and column.
final class XMLStream {
    enum Event {
        case elementStart
        case elementEnd
        case text
        case endOfDocument
    }

    /// Turns a line (and what to look for on it) into a column, for error messages.
    let locator: SourceColumnLocator
    private let errorRouting: ThreadXMLErrorRouting
    private let recorder: XMLRecorder
    // Views of the recorder's lists, which stay put once the parse is over.
    private let events: UnsafeBufferPointer<RecordedEvent>
    private let elements: UnsafeBufferPointer<RecordedElement>
    private let attributes: UnsafeBufferPointer<RecordedAttribute>
    private let document: xmlDocPtr?
    /// Element and attribute names classified by their dictionary address.
    private let names: DictionaryNameCache
    /// Where the walk is, behind a `let` pointer so that reading it takes no exclusivity check.
    private let cursor: UnsafeMutablePointer<Cursor>

    private struct Cursor {
        /// Index of the current event in `events` (`events.count` once the document has ended).
        var position = -1
        /// The element the current start or end event belongs to (the last one for a text).
        var element: RecordedElement?
        var isAtStart = false
        /// The current text's offset in the recorder's bytes.
        var textOffset = 0
    }

    /// The stream owns nothing of `bytes`; they must outlive it (the locator reads them for error columns).
    init(bytes: UnsafeRawBufferPointer) throws(ODataError) {
        _ = libxml2Initialization
        locator = SourceColumnLocator(bytes: bytes)
        guard bytes.count > 0 else { throw ODataError(.metadata, "the $metadata document is empty", line: 1, column: 1) }
        guard bytes.count < Int(Int32.max), let base = bytes.baseAddress else {
            throw ODataError(.metadata, "the $metadata document is too large (\(bytes.count) bytes)")
        }
        errorRouting = ThreadXMLErrorRouting()
        recorder = XMLRecorder()
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_BIG_LINES.rawValue | XML_PARSE_NOCDATA.rawValue)
        guard recorder.parse(base.assumingMemoryBound(to: CChar.self), count: bytes.count, options: options) else {
            throw ODataError(.metadata, "libxml2 could not create a parser")
        }
        if recorder.ranOutOfMemory {
            throw ODataError(.metadata, "the $metadata document is too large to read (out of memory)")
        }
        if let captured = errorRouting.capture.first {
            throw XMLStream.wellFormednessError(captured, parserPosition: recorder.parserPosition)
        }
        guard recorder.isWellFormed else {
            throw ODataError(.metadata, "the document is not well-formed XML", line: max(recorder.parserPosition.line, 1))
        }
        events = recorder.events
        elements = recorder.elements
        attributes = recorder.attributes
        document = recorder.document
        names = DictionaryNameCache(dictionary: recorder.dictionary)
        cursor = .allocate(capacity: 1)
        cursor.initialize(to: Cursor())
    }

    deinit {
        cursor.deinitialize(count: 1)
        cursor.deallocate()
    }

    /// Advances to the next element start, element end or text.
    func next() throws(ODataError) -> Event {
        let position = cursor.pointee.position + 1
        guard position >= 0, position < events.count else {
            cursor.pointee.position = events.count
            cursor.pointee.isAtStart = false
            return .endOfDocument
        }
        cursor.pointee.position = position
        switch events[position] {
        case .start(let started):
            cursor.pointee.element = started < elements.count ? elements[started] : nil
            cursor.pointee.isAtStart = true
            return .elementStart
        case .end(let ended):
            cursor.pointee.element = ended < elements.count ? elements[ended] : nil
            cursor.pointee.isAtStart = false
            return .elementEnd
        case .text(let offset):
            cursor.pointee.textOffset = offset
            cursor.pointee.isAtStart = false
            return .text
        }
    }

    private var current: RecordedElement? { cursor.pointee.element }

    var isEmptyElement: Bool { cursor.pointee.isAtStart && current?.endEvent == nil }

    /// 1-based line of the current element's start tag (where libxml2 saw it end).
    var line: Int { current?.line ?? 0 }

    /// The namespace kind of the current element.
    var namespaceKind: XMLNamespaceKind { current?.namespaceKind ?? .none }

    /// The namespace URI of the current element, for messages.
    var namespaceURI: String? { current?.namespaceURI.map { String(cString: $0) } }

    /// The local name of the current element as libxml2 keeps it (valid as long as the stream).
    var localNamePointer: UnsafePointer<UInt8>? { current?.localName }

    /// The CSDL element the current element's local name is (whatever its namespace), if any.
    var elementName: CSDLElement? { names.element(current?.localName) }

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

    /// The bytes of the current text (NUL-terminated, valid as long as the stream).
    var textPointer: UnsafePointer<UInt8>? { recorder.bytes(at: cursor.pointee.textOffset) }

    /// The current text.
    var text: String {
        guard let bytes = textPointer else { return "" }
        return String(cString: bytes)
    }

    /// Calls `body` for each attribute of the current element.
    func forEachAttribute(_ body: (XMLAttributeView) throws(ODataError) -> Void) throws(ODataError) {
        guard cursor.pointee.isAtStart, let current else { return }
        let end = current.firstAttribute + current.attributeCount
        guard current.firstAttribute >= 0, end <= attributes.count else { return }
        for index in current.firstAttribute..<end {
            let attribute = attributes[index]
            guard let value = recorder.bytes(at: attribute.valueOffset) else { continue }
            try body(XMLAttributeView(attribute: attribute, value: value, document: document, names: names))
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

    /// Consumes the current element and everything inside it: moves to its end.
    func skipElement() throws(ODataError) {
        guard cursor.pointee.isAtStart, let end = current?.endEvent else { return }
        guard end > cursor.pointee.position, end < events.count else {
            throw ODataError(.metadata, "the document ends inside an element", line: line)
        }
        cursor.pointee.position = end
        cursor.pointee.isAtStart = false
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
