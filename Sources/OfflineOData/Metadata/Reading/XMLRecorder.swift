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
}

/// An attribute as the SAX2 parse saw it; the value is in the recorded bytes, NUL-terminated.
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
    /// An element with content; its end comes as an `end` event.
    case start(element: Int)
    /// An element with nothing but layout inside (`<a/>`, `<a></a>`, `<a> </a>`), which has no
    /// end event, like `xmlTextReader`'s empty elements.
    case empty(element: Int)
    case end
    /// A text node's bytes (NUL-terminated) at this offset of the recorded bytes.
    case text(offset: Int)
}

/// Parses a document with libxml2's SAX2 callbacks (no tree), a chunk at a time, and records what
/// the CSDL reader needs into flat lists: element starts and ends, attributes, and texts.
///
/// The reader asks for the next chunk once it has walked everything recorded, and the lists start
/// over then, so they stay the size of a chunk's worth (and in the cache) whatever the document's size.
///
/// The recording reproduces what `xmlTextReader` showed before: a text event is one text node of
/// the tree libxml2 would have built (characters up to the next tag, comment, processing
/// instruction or entity reference, CDATA merged in) and is left out when it is only white space;
/// the contents of entity references are not entered; attributes libxml2 adds from DTD defaults
/// are left out. The parser context, its dictionary (which the recorded names point into) and the
/// document holding the DTD's entities (for expanding references in attribute values) live as
/// long as the recorder.
final class XMLRecorder {
    /// Input bytes parsed per chunk.
    private static let chunkSize = 1 << 16

    /// The recording, behind a `let` pointer: the callbacks reach it through the parser
    /// context's `_private` and update it without any exclusivity or reference counting work.
    private let state: UnsafeMutablePointer<XMLRecording>
    private let input: UnsafePointer<CChar>
    private let inputCount: Int
    /// Bytes of the input handed to libxml2 so far, behind a `let` pointer like `state`.
    private let inputOffset: UnsafeMutablePointer<Int>

    /// Creates the parser for `input[0..<count]` (count in 1..<Int32.max, bytes that outlive the
    /// recorder); nil when libxml2 cannot create one.
    init?(input: UnsafePointer<CChar>, count: Int, options: Int32) {
        var handler = xmlSAXHandler()
        xmlSAXVersion(&handler, 2)
        // The default SAX2 handler stays for the prolog (document, DTD, entity declarations);
        // element content is recorded here instead of built into a tree.
        handler.startElementNs = { context, localName, prefix, uri, _, _, count, defaulted, attributes in
            XMLRecording.of(context)?.pointee.recordStart(localName, prefix, uri, attributes, count: Int(count) - Int(defaulted))
        }
        handler.endElementNs = { context, _, _, _ in XMLRecording.of(context)?.pointee.recordEnd() }
        handler.characters = { context, bytes, length in XMLRecording.of(context)?.pointee.recordText(bytes, Int(length)) }
        handler.ignorableWhitespace = handler.characters
        handler.cdataBlock = nil
        handler.comment = { context, _ in XMLRecording.of(context)?.pointee.endTextRun() }
        handler.processingInstruction = { context, _, _ in XMLRecording.of(context)?.pointee.endTextRun() }
        handler.reference = { context, _ in XMLRecording.of(context)?.pointee.endTextRun() }
        handler.startElement = nil
        handler.endElement = nil
        handler.serror = nil
        // Like `xmlReaderForMemory`: the first 4 bytes create the context (encoding detection).
        let head = count >= 4 ? 4 : 0
        guard let context = xmlCreatePushParserCtxt(&handler, nil, head > 0 ? input : nil, Int32(head), nil) else {
            return nil
        }
        xmlCtxtUseOptions(context, options)
        self.input = input
        inputCount = count
        inputOffset = .allocate(capacity: 1)
        inputOffset.initialize(to: head)
        state = .allocate(capacity: 1)
        state.initialize(to: XMLRecording(context: context))
        // The context passes itself to every callback, which finds the recording through
        // `_private`. libxml2 parses the replacement text of entity references with contexts of
        // its own, whose callbacks `of` ignores: `xmlTextReader` did not enter those references.
        context.pointee._private = UnsafeMutableRawPointer(state)
    }

    deinit {
        if let context = state.pointee.context {
            if let document = context.pointee.myDoc {
                context.pointee.myDoc = nil
                xmlFreeDoc(document)
            }
            context.pointee._private = nil
            xmlFreeParserCtxt(context)
        }
        state.pointee.release()
        state.deinitialize(count: 1)
        state.deallocate()
        inputOffset.deallocate()
    }

    /// Whether the whole input has been parsed.
    var isFinished: Bool { inputOffset.pointee >= inputCount }

    /// Parses the next chunk of the input (the last one ends the document); false when the whole
    /// input was parsed already or recording ran out of memory. New events are appended.
    func parseNextChunk() -> Bool {
        let offset = inputOffset.pointee
        guard offset < inputCount, !state.pointee.ranOutOfMemory, let context = state.pointee.context else { return false }
        let length = min(XMLRecorder.chunkSize, inputCount - offset)
        inputOffset.pointee = offset + length
        let isLast = inputOffset.pointee >= inputCount
        xmlParseChunk(context, input + offset, Int32(length), isLast ? 1 : 0)
        if isLast { state.pointee.endTextRun() }
        return true
    }

    /// Forgets everything recorded so far (all of it walked); a run of text still open is kept.
    func startOver() { state.pointee.startOver() }

    var events: UnsafeBufferPointer<RecordedEvent> { state.pointee.events.buffer }
    var elements: UnsafeBufferPointer<RecordedElement> { state.pointee.elements.buffer }
    var attributes: UnsafeBufferPointer<RecordedAttribute> { state.pointee.attributes.buffer }

    /// The NUL-terminated value or text at `offset` of the recorded bytes (valid until the next chunk).
    func bytes(at offset: Int) -> UnsafePointer<UInt8>? { state.pointee.bytes.pointer(at: offset) }

    /// Whether recording stopped for lack of memory.
    var ranOutOfMemory: Bool { state.pointee.ranOutOfMemory }

    /// The document libxml2 made for the DTD (entity declarations); it holds no elements.
    var document: xmlDocPtr? { state.pointee.context?.pointee.myDoc }

    /// The parser's dictionary, which owns every recorded name.
    var dictionary: xmlDictPtr? { state.pointee.context?.pointee.dict }

    /// Whether libxml2 has found the document well-formed so far (errors themselves are captured elsewhere).
    var isWellFormed: Bool { state.pointee.context.map { $0.pointee.wellFormed != 0 } ?? false }

    /// libxml2's current line and column (for errors that carry no position).
    var parserPosition: (line: Int, column: Int) {
        guard let input = state.pointee.context?.pointee.input else { return (0, 0) }
        return (Int(input.pointee.line), Int(input.pointee.col))
    }
}

/// The lists the SAX2 callbacks fill, and their state between callbacks.
struct XMLRecording {
    let context: xmlParserCtxtPtr?
    var events = RawList<RecordedEvent>()
    var elements = RawList<RecordedElement>()
    var attributes = RawList<RecordedAttribute>()
    /// Attribute values and texts, each NUL-terminated.
    var bytes = RawList<UInt8>()
    var ranOutOfMemory = false
    /// Offset in `bytes` where the current run of text began, or -1 outside a run.
    var textRunStart = -1
    var textRunIsBlank = true
    /// The last namespace URI classified (a dictionary address) and its kind.
    var recentNamespace: UnsafePointer<UInt8>?
    var recentNamespaceKind = XMLNamespaceKind.none

    init(context: xmlParserCtxtPtr?) {
        self.context = context
    }

    mutating func release() {
        events.release()
        elements.release()
        attributes.release()
        bytes.release()
    }

    mutating func startOver() {
        events.truncate(to: 0)
        elements.truncate(to: 0)
        attributes.truncate(to: 0)
        guard textRunStart > 0, let base = bytes.base else {
            if textRunStart < 0 { bytes.truncate(to: 0) }
            return
        }
        // Move the open run of text to the front.
        let length = bytes.count - textRunStart
        memmove(base, base + textRunStart, length)
        bytes.truncate(to: length)
        textRunStart = 0
    }

    /// The recording of the context a callback got, when that context is the recording's own.
    @inline(__always)
    static func of(_ context: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<XMLRecording>? {
        guard let context else { return nil }
        let parser = context.assumingMemoryBound(to: xmlParserCtxt.self)
        guard let owner = parser.pointee._private else { return nil }
        let recording = owner.assumingMemoryBound(to: XMLRecording.self)
        return recording.pointee.context == parser ? recording : nil
    }

    mutating func recordStart(_ localName: UnsafePointer<UInt8>?, _ prefix: UnsafePointer<UInt8>?, _ uri: UnsafePointer<UInt8>?,
                              _ values: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, count: Int) {
        endTextRun()
        guard !ranOutOfMemory else { return }
        let firstAttribute = attributes.count
        if let values, count > 0 {
            // Five pointers per attribute: local name, prefix, namespace URI, value, value end.
            for index in 0..<count {
                let fields = values + index * 5
                guard let value = fields[3], let valueEnd = fields[4] else { continue }
                let length = value.distance(to: valueEnd)
                guard length >= 0 else { continue }
                let offset = bytes.count
                guard bytes.append(value, count: length), bytes.append(0) else { return stop() }
                // libxml2 copies a value it had to decode and ends it with a NUL; a value read
                // straight from the input ends at its quote. Only a copy can hold references.
                let hasReferences = valueEnd.pointee == 0 && length > 0 && memchr(value, 0x26, length) != nil
                let attribute = RecordedAttribute(localName: fields[0], prefix: fields[1], namespaceURI: fields[2],
                                                  valueOffset: offset, valueLength: length, hasReferences: hasReferences)
                guard attributes.append(attribute) else { return stop() }
            }
        }
        let line = context.map { Int($0.pointee.input?.pointee.line ?? 0) } ?? 0
        let element = RecordedElement(localName: localName, prefix: prefix, namespaceURI: uri,
                                      namespaceKind: namespaceKind(of: uri), line: line, firstAttribute: firstAttribute,
                                      attributeCount: attributes.count - firstAttribute)
        let index = elements.count
        guard elements.append(element), events.append(.start(element: index)) else { return stop() }
    }

    mutating func recordEnd() {
        endTextRun()
        guard !ranOutOfMemory else { return }
        // The last event is a start only when it is this element's and nothing but layout followed.
        if case .start(let index)? = events.last {
            events.replace(at: events.count - 1, with: .empty(element: index))
            return
        }
        guard events.append(.end) else { return stop() }
    }

    mutating func recordText(_ text: UnsafePointer<UInt8>?, _ length: Int) {
        guard let text, length > 0, !ranOutOfMemory else { return }
        if textRunStart < 0 {
            textRunStart = bytes.count
            textRunIsBlank = true
        }
        guard bytes.append(text, count: length) else { return stop() }
        if textRunIsBlank {
            for index in 0..<length {
                let byte = text[index]
                if byte != 0x20 && byte != 0x0A && byte != 0x09 && byte != 0x0D {
                    textRunIsBlank = false
                    break
                }
            }
        }
    }

    /// Ends the current run of text: kept as a text event, or dropped when it is only white space
    /// (`xmlTextReader` reports such a node as white space, which the reader skipped).
    mutating func endTextRun() {
        guard textRunStart >= 0 else { return }
        let start = textRunStart
        textRunStart = -1
        if textRunIsBlank || ranOutOfMemory {
            bytes.truncate(to: start)
            return
        }
        guard bytes.append(0), events.append(.text(offset: start)) else { return stop() }
    }

    /// Stops the parse when the recording cannot grow.
    private mutating func stop() {
        ranOutOfMemory = true
        if let context { xmlStopParser(context) }
    }

    /// Elements come in long runs of one namespace, and every URI lives in the parser's dictionary
    /// for the whole parse: the last URI's kind is reused when the address is the same.
    private mutating func namespaceKind(of uri: UnsafePointer<UInt8>?) -> XMLNamespaceKind {
        guard let uri else { return .none }
        if uri == recentNamespace { return recentNamespaceKind }
        let kind = XMLNamespaces.kind(of: uri)
        if let dictionary = context?.pointee.dict, xmlDictOwns(dictionary, uri) == 1 {
            recentNamespace = uri
            recentNamespaceKind = kind
        }
        return kind
    }
}
