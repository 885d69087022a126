internal import CLibXML2
#if canImport(Glibc)
import Glibc
#endif

/// libxml2's streaming reader (`xmlTextReader`) over bytes in memory, reduced to what the CSDL
/// reader needs: element starts and ends, attributes read straight from the node, text.
///
/// Safety settings, all on every read: `XML_PARSE_NONET` (no network, ever), `NOERROR` and
/// `NOWARNING` (libxml2 prints nothing to the host's stderr), no entity substitution and no DTD
/// loading. Parser errors go to a structured handler installed on this reader only. Errors that
/// libxml2 raises without a parser context (encoding conversion, "I/O error : encoder error")
/// would go to its default handler, which prints; for the lifetime of the stream the calling
/// thread's structured handler (libxml2 keeps it per thread) captures them too, the thread's
/// generic handler drops the few that only go there, and both previous handlers are restored
/// afterwards. No process-wide handler is installed.
final class XMLStream {
    enum Event {
        case elementStart
        case elementEnd
        case text
        case endOfDocument
    }

    private let reader: OpaquePointer
    private let errors: ErrorCapture
    private let errorsReference: Unmanaged<ErrorCapture>
    /// The calling thread's structured error handler before this stream, restored by `deinit`.
    private let previousThreadHandler: xmlStructuredErrorFunc?
    private let previousThreadContext: UnsafeMutableRawPointer?
    /// The calling thread's generic error handler before this stream (see `cxml_silence_generic_errors`).
    private let previousGenericErrors: cxml_generic_error_state
    /// Turns a line (and what to look for on it) into a column, for error messages.
    let locator: SourceColumnLocator
    /// Element and attribute names classified by their dictionary address.
    private let names = DictionaryNameCache()
    /// The last element namespace URI classified (a copy; nil before the first) and its kind,
    /// behind `let` pointers so that reading them takes no exclusivity check.
    /// Allocated once nothing in `init` can throw any more (a throwing `init` runs no `deinit`).
    private let recentNamespace: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
    private let recentNamespaceKind: UnsafeMutablePointer<XMLNamespaceKind>

    /// The reader owns nothing of `bytes`; they must outlive the stream.
    init(bytes: UnsafeRawBufferPointer) throws(ODataError) {
        _ = libxml2Initialization
        locator = SourceColumnLocator(bytes: bytes)
        guard bytes.count > 0 else { throw ODataError(.metadata, "the $metadata document is empty", line: 1, column: 1) }
        guard bytes.count < Int(Int32.max), let base = bytes.baseAddress else {
            throw ODataError(.metadata, "the $metadata document is too large (\(bytes.count) bytes)")
        }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_BIG_LINES.rawValue | XML_PARSE_NOCDATA.rawValue)
        guard let reader = xmlReaderForMemory(base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), nil, nil, options) else {
            throw ODataError(.metadata, "libxml2 could not create a reader")
        }
        self.reader = reader
        recentNamespace = .allocate(capacity: 1)
        recentNamespace.initialize(to: nil)
        recentNamespaceKind = .allocate(capacity: 1)
        recentNamespaceKind.initialize(to: .none)
        errors = ErrorCapture()
        errorsReference = Unmanaged.passRetained(errors)
        let capture: xmlStructuredErrorFunc = { context, error in
            guard let context, let error else { return }
            Unmanaged<ErrorCapture>.fromOpaque(context).takeUnretainedValue().record(error.pointee)
        }
        xmlTextReaderSetStructuredErrorHandler(reader, capture, errorsReference.toOpaque())
        previousThreadHandler = __xmlStructuredError()?.pointee
        previousThreadContext = __xmlStructuredErrorContext()?.pointee
        xmlSetStructuredErrorFunc(errorsReference.toOpaque(), capture)
        previousGenericErrors = cxml_silence_generic_errors()
    }

    deinit {
        recentNamespace.pointee.map { free($0) }
        recentNamespace.deallocate()
        recentNamespaceKind.deallocate()
        xmlFreeTextReader(reader)
        xmlSetStructuredErrorFunc(previousThreadContext, previousThreadHandler)
        cxml_restore_generic_errors(previousGenericErrors)
        errorsReference.release()
    }

    /// Advances to the next element start, element end or text; skips comments, whitespace, PIs.
    func next() throws(ODataError) -> Event {
        while true {
            let status = xmlTextReaderRead(reader)
            if status == 1 {
                switch xmlTextReaderNodeType(reader) {
                case 1: return .elementStart
                case 15: return .elementEnd
                case 3, 4: return .text
                default: continue
                }
            }
            if status == 0 {
                if let error = errors.first { throw xmlError(error) }
                return .endOfDocument
            }
            throw xmlError(errors.first)
        }
    }

    /// The current node (an element after `.elementStart`).
    var node: xmlNodePtr? { xmlTextReaderCurrentNode(reader) }

    var isEmptyElement: Bool { xmlTextReaderIsEmptyElement(reader) == 1 }

    var depth: Int32 { xmlTextReaderDepth(reader) }

    /// 1-based line of the current node's start tag.
    var line: Int {
        guard let node else { return 0 }
        return xmlGetLineNo(node)
    }

    /// The namespace kind of the current element.
    var namespaceKind: XMLNamespaceKind {
        guard let node else { return .none }
        guard let href = node.pointee.ns?.pointee.href else { return .none }
        // Elements come in long runs of one namespace: the last URI's kind is reused when the
        // bytes are the same (compared in full, so a URI freed and replaced is never mistaken).
        let uri = UnsafeRawPointer(href).assumingMemoryBound(to: CChar.self)
        if let recent = recentNamespace.pointee, strcmp(uri, recent) == 0 { return recentNamespaceKind.pointee }
        let kind = XMLNamespaces.kind(of: href)
        recentNamespace.pointee.map { free($0) }
        recentNamespace.pointee = strdup(uri)
        recentNamespaceKind.pointee = kind
        return kind
    }

    /// The local name of the current element as libxml2 keeps it (valid until the next read).
    var localNamePointer: UnsafePointer<UInt8>? {
        guard let node else { return nil }
        return node.pointee.name
    }

    /// The CSDL element the current element's local name is (whatever its namespace), if any.
    var elementName: CSDLElement? {
        guard let node else { return nil }
        return names.element(node.pointee.name, of: node)
    }

    /// The local name of the current element as a `String` (for messages and kept data).
    var localName: String {
        guard let name = localNamePointer else { return "" }
        return String(cString: name)
    }

    /// The prefixed name (`edmx:Edmx`) of the current element, for messages.
    var qualifiedTagName: String {
        guard let node else { return "" }
        let local = localName
        if let prefix = node.pointee.ns?.pointee.prefix { return String(cString: prefix) + ":" + local }
        return local
    }

    /// The bytes of the current text node (NUL-terminated, valid until the next read).
    var textPointer: UnsafePointer<UInt8>? { xmlTextReaderConstValue(reader) }

    /// The text of the current text node.
    var text: String {
        guard let value = xmlTextReaderConstValue(reader) else { return "" }
        return String(cString: value)
    }

    /// Calls `body` for each attribute of the current element.
    func forEachAttribute(_ body: (XMLAttributeView) throws(ODataError) -> Void) throws(ODataError) {
        guard let node else { return }
        var attribute = node.pointee.properties
        while let current = attribute {
            try body(XMLAttributeView(attribute: current, document: node.pointee.doc, names: names))
            attribute = current.pointee.next
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
        if isEmptyElement { return }
        let startDepth = depth
        while true {
            switch try next() {
            case .elementEnd where depth == startDepth: return
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

    private func xmlError(_ captured: CapturedXMLError?) -> ODataError {
        guard let captured else {
            return ODataError(.metadata, "the document is not well-formed XML",
                              line: max(Int(xmlTextReaderGetParserLineNumber(reader)), 1))
        }
        if captured.line > 0 {
            return ODataError(.metadata, "the document is not well-formed XML: \(captured.message)",
                              line: captured.line, column: captured.column > 0 ? captured.column : nil)
        }
        // Errors raised without a parser context (encoding conversion) carry no position: the
        // parser's own position is the nearest there is.
        let parserLine = Int(xmlTextReaderGetParserLineNumber(reader))
        let parserColumn = Int(xmlTextReaderGetParserColumnNumber(reader))
        return ODataError(.metadata, "the document is not well-formed XML: \(captured.message)",
                          line: max(parserLine, 1), column: parserColumn > 0 ? parserColumn : nil)
    }
}

/// `xmlInitParser()` exactly once per process, before the first reader (thread-safe lazy global).
private let libxml2Initialization: Void = { xmlInitParser() }()

/// The first error libxml2 reported for one reader.
struct CapturedXMLError {
    var message: String
    var line: Int
    var column: Int
}

/// Collects libxml2's structured errors for one reader. Only that reader's thread touches it.
private final class ErrorCapture {
    var first: CapturedXMLError?

    func record(_ error: xmlError) {
        guard first == nil else { return }
        // Warnings do not make a document unreadable.
        guard error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        var message = error.message.map { String(cString: $0) } ?? "unknown XML error"
        while message.last == "\n" || message.last == " " { message.removeLast() }
        first = CapturedXMLError(message: message, line: Int(error.line), column: Int(error.int2))
    }
}

/// One attribute of the current element, read without copying until a value is asked for.
struct XMLAttributeView {
    let attribute: xmlAttrPtr
    let document: xmlDocPtr?
    /// The stream's name cache; the view never outlives the stream's `forEachAttribute` call.
    unowned(unsafe) let names: DictionaryNameCache

    var namespaceKind: XMLNamespaceKind { XMLNamespaces.kind(of: attribute.pointee.ns?.pointee.href) }

    /// The attribute's meaning when it is a plain (or `m:`) CSDL attribute.
    var csdlName: CSDLAttribute { names.attribute(attribute.pointee.name, document: document) ?? .other }

    var name: String { attribute.pointee.name.map { String(cString: $0) } ?? "" }

    /// The value's bytes (NUL-terminated, valid until the next read) when it is one text node,
    /// which is every value without entity references; nil otherwise (then use ``value``).
    var singleText: UnsafePointer<UInt8>? {
        guard let child = attribute.pointee.children, child.pointee.type == XML_TEXT_NODE, child.pointee.next == nil else {
            return nil
        }
        return UnsafePointer(child.pointee.content)
    }

    /// The attribute value, entity references expanded.
    var value: String {
        if let child = attribute.pointee.children {
            if child.pointee.type == XML_TEXT_NODE, child.pointee.next == nil, let content = child.pointee.content {
                return String(cString: content)
            }
            guard let joined = xmlNodeListGetString(document, child, 1) else { return "" }
            defer { cxml_free(joined) }
            return String(cString: joined)
        }
        return ""
    }

    /// The attribute kept as data (namespace URI, prefix, name, value).
    var asData: XMLAttribute {
        let ns = attribute.pointee.ns
        return XMLAttribute(
            namespace: ns?.pointee.href.map { String(cString: $0) } ?? "",
            prefix: ns?.pointee.prefix.map { String(cString: $0) } ?? "",
            name: name,
            value: value
        )
    }
}
