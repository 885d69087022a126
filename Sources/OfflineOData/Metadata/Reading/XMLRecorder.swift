internal import CLibXML2
#if canImport(Glibc)
import Glibc
#endif

/// An element start as the SAX2 parse saw it. Names point into the parser's dictionary.
struct RecordedElement {
    let localName: UnsafePointer<UInt8>?
    let prefix: UnsafePointer<UInt8>?
    let namespaceURI: UnsafePointer<UInt8>?
    let namespaceKind: XMLNamespaceKind
    /// The line libxml2 was on when the start tag ended (what `xmlGetLineNo` gives a tree node).
    let line: Int
    let firstAttribute: Int
    let attributeCount: Int
    /// Index of the element's end in the event list; nil when nothing but layout was inside it
    /// (`<a/>`, `<a></a>`, `<a> </a>`), which then has no end event, like `xmlTextReader`'s empty elements.
    var endEvent: Int?
}

/// An attribute as the SAX2 parse saw it; the value is in the arena, NUL-terminated.
struct RecordedAttribute {
    let localName: UnsafePointer<UInt8>?
    let prefix: UnsafePointer<UInt8>?
    let namespaceURI: UnsafePointer<UInt8>?
    let valueOffset: Int
    let valueLength: Int
    /// The value still holds entity references (`&name;`, and `&#38;` for a literal `&`), which
    /// libxml2 leaves in place without entity substitution; ``XMLAttributeView/value`` expands them.
    let hasReferences: Bool
}

enum RecordedEvent {
    case start(element: Int)
    case end(element: Int)
    /// A text node's bytes (NUL-terminated) at this arena offset.
    case text(offset: Int)
}

/// Parses a whole document with libxml2's SAX2 callbacks (no tree) and records what the CSDL
/// reader needs into flat lists: element starts and ends, attributes, and text, in document order.
///
/// The recording reproduces what `xmlTextReader` showed before: a text event is one text node of
/// the tree libxml2 would have built (characters up to the next tag, comment, processing
/// instruction or entity reference, CDATA merged in) and is left out when it is only white space;
/// the contents of entity references are not entered; attributes libxml2 adds from DTD defaults
/// are left out. The parser context, its dictionary (which the recorded names point into) and the
/// document holding the DTD's entities (for expanding references in attribute values) live as
/// long as the recorder.
final class XMLRecorder {
    private(set) var events: [RecordedEvent] = []
    private(set) var elements: [RecordedElement] = []
    private(set) var attributes: [RecordedAttribute] = []
    let arena = ByteArena()
    /// Set by `parse`; freed by `deinit`.
    private(set) var context: xmlParserCtxtPtr?
    /// Whether recording stopped for lack of memory.
    private(set) var ranOutOfMemory = false

    /// Elements started and not yet ended.
    private var openElements: [Int] = []
    /// Arena offset where the current run of text began, or -1 outside a run.
    private var textRunStart = -1
    private var textRunIsBlank = true
    /// The last namespace URI classified (a dictionary address) and its kind.
    private var recentNamespace: UnsafePointer<UInt8>?
    private var recentNamespaceKind = XMLNamespaceKind.none

    init() {
        events.reserveCapacity(1024)
        elements.reserveCapacity(512)
        attributes.reserveCapacity(1024)
    }

    deinit {
        if let context {
            if let document = context.pointee.myDoc {
                context.pointee.myDoc = nil
                xmlFreeDoc(document)
            }
            context.pointee._private = nil
            xmlFreeParserCtxt(context)
        }
    }

    /// The document libxml2 made for the DTD (entity declarations); it holds no elements.
    var document: xmlDocPtr? { context?.pointee.myDoc }

    /// The parser's dictionary, which owns every recorded name.
    var dictionary: xmlDictPtr? { context?.pointee.dict }

    /// Parses `base[0..<count]` (count in 1..<Int32.max) with `options`; false when the parser
    /// could not even be created. Errors go wherever the thread's libxml2 handlers send them.
    func parse(_ base: UnsafePointer<CChar>, count: Int, options: Int32) -> Bool {
        var handler = xmlSAXHandler()
        xmlSAXVersion(&handler, 2)
        // The default SAX2 handler stays for the prolog (document, DTD, entity declarations);
        // element content is recorded here instead of built into a tree.
        handler.startElementNs = { context, localName, prefix, uri, _, _, count, defaulted, attributes in
            XMLRecorder.of(context)?.recordStart(localName, prefix, uri, attributes, count: Int(count) - Int(defaulted))
        }
        handler.endElementNs = { context, _, _, _ in XMLRecorder.of(context)?.recordEnd() }
        handler.characters = { context, bytes, length in XMLRecorder.of(context)?.recordText(bytes, Int(length)) }
        handler.ignorableWhitespace = handler.characters
        handler.cdataBlock = nil
        handler.comment = { context, _ in XMLRecorder.of(context)?.endTextRun() }
        handler.processingInstruction = { context, _, _ in XMLRecorder.of(context)?.endTextRun() }
        handler.reference = { context, _ in XMLRecorder.of(context)?.endTextRun() }
        handler.startElement = nil
        handler.endElement = nil
        handler.serror = nil
        // Like `xmlReaderForMemory`: the first 4 bytes create the context (encoding detection).
        let head = count >= 4 ? 4 : 0
        guard let context = xmlCreatePushParserCtxt(&handler, nil, head > 0 ? base : nil, Int32(head), nil) else {
            return false
        }
        self.context = context
        // The context passes itself to every callback; it finds the recorder through `_private`.
        // libxml2 parses the replacement text of entity references with contexts of its own,
        // whose callbacks `of` ignores, as `xmlTextReader` did not enter those references.
        context.pointee._private = Unmanaged.passUnretained(self).toOpaque()
        xmlCtxtUseOptions(context, options)
        xmlParseChunk(context, base + head, Int32(count - head), 1)
        endTextRun()
        return true
    }

    /// Whether libxml2 found the document well-formed (errors themselves are captured elsewhere).
    var isWellFormed: Bool { context.map { $0.pointee.wellFormed != 0 } ?? false }

    /// libxml2's current line and column (for errors that carry no position).
    var parserPosition: (line: Int, column: Int) {
        guard let input = context?.pointee.input else { return (0, 0) }
        return (Int(input.pointee.line), Int(input.pointee.col))
    }

    /// The recorder of the context a callback got, when that context is the recorder's own.
    private static func of(_ context: UnsafeMutableRawPointer?) -> XMLRecorder? {
        guard let context else { return nil }
        let parser = context.assumingMemoryBound(to: xmlParserCtxt.self)
        guard let owner = parser.pointee._private else { return nil }
        let recorder = Unmanaged<XMLRecorder>.fromOpaque(owner).takeUnretainedValue()
        return recorder.context == parser ? recorder : nil
    }

    private func recordStart(_ localName: UnsafePointer<UInt8>?, _ prefix: UnsafePointer<UInt8>?, _ uri: UnsafePointer<UInt8>?,
                             _ values: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int) {
        endTextRun()
        guard !ranOutOfMemory else { return }
        let firstAttribute = attributes.count
        var recorded = 0
        if let values, count > 0 {
            // Five pointers per attribute: local name, prefix, namespace URI, value, value end.
            for index in 0..<count {
                let fields = values + index * 5
                guard let value = fields[3], let valueEnd = fields[4] else { continue }
                let length = value.distance(to: valueEnd)
                guard length >= 0 else { continue }
                let offset = arena.count
                guard arena.append(value, count: length), arena.appendTerminator() else { return stop() }
                // libxml2 copies a value it had to decode and ends it with a NUL; a value read
                // straight from the input ends at its quote. Only a copy can hold references.
                let hasReferences = valueEnd.pointee == 0 && length > 0 && memchr(value, 0x26, length) != nil
                attributes.append(RecordedAttribute(localName: fields[0], prefix: fields[1], namespaceURI: fields[2],
                                                    valueOffset: offset, valueLength: length, hasReferences: hasReferences))
                recorded += 1
            }
        }
        let line = context.map { Int($0.pointee.input?.pointee.line ?? 0) } ?? 0
        let element = elements.count
        elements.append(RecordedElement(localName: localName, prefix: prefix, namespaceURI: uri,
                                        namespaceKind: namespaceKind(of: uri), line: line,
                                        firstAttribute: firstAttribute, attributeCount: recorded, endEvent: nil))
        events.append(.start(element: element))
        openElements.append(element)
    }

    private func recordEnd() {
        endTextRun()
        guard !ranOutOfMemory, let element = openElements.popLast() else { return }
        // Nothing but layout inside: an empty element, without an end event.
        if case .start(element)? = events.last { return }
        elements[element].endEvent = events.count
        events.append(.end(element: element))
    }

    private func recordText(_ bytes: UnsafePointer<UInt8>?, _ length: Int) {
        guard let bytes, length > 0, !ranOutOfMemory else { return }
        if textRunStart < 0 {
            textRunStart = arena.count
            textRunIsBlank = true
        }
        guard arena.append(bytes, count: length) else { return stop() }
        if textRunIsBlank {
            for index in 0..<length {
                let byte = bytes[index]
                if byte != 0x20 && byte != 0x0A && byte != 0x09 && byte != 0x0D {
                    textRunIsBlank = false
                    break
                }
            }
        }
    }

    /// Ends the current run of text: kept as a text event, or dropped when it is only white space
    /// (`xmlTextReader` reports such a node as white space, which the reader skipped).
    private func endTextRun() {
        guard textRunStart >= 0 else { return }
        let start = textRunStart
        textRunStart = -1
        if textRunIsBlank || ranOutOfMemory {
            arena.truncate(to: start)
            return
        }
        guard arena.appendTerminator() else { return stop() }
        events.append(.text(offset: start))
    }

    /// Stops the parse when the recording cannot grow.
    private func stop() {
        ranOutOfMemory = true
        if let context { xmlStopParser(context) }
    }

    /// Elements come in long runs of one namespace, and every URI lives in the parser's dictionary
    /// for the whole parse: the last URI's kind is reused when the address is the same.
    private func namespaceKind(of uri: UnsafePointer<UInt8>?) -> XMLNamespaceKind {
        guard let uri else { return .none }
        if uri == recentNamespace { return recentNamespaceKind }
        let kind = XMLNamespaces.kind(of: uri)
        if let dictionary, xmlDictOwns(dictionary, uri) == 1 {
            recentNamespace = uri
            recentNamespaceKind = kind
        }
        return kind
    }
}
