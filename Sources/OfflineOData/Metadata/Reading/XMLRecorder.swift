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
    /// The CSDL element the local name is (whatever its namespace), classified while recording.
    let kind: CSDLElement?
    /// The line libxml2 was on when the start tag ended (what `xmlGetLineNo` gives a tree node).
    let line: Int
    let firstAttribute: Int
    let attributeCount: Int
}

/// An attribute as the SAX2 parse saw it; the value is in the recorded bytes, NUL-terminated,
/// with entity references already expanded.
struct RecordedAttribute {
    let localName: UnsafePointer<UInt8>?
    let prefix: UnsafePointer<UInt8>?
    let namespaceURI: UnsafePointer<UInt8>?
    /// The CSDL attribute the local name is, classified while recording.
    let kind: CSDLAttribute?
    let valueOffset: Int
    let valueLength: Int
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
/// The recording is handed over a part at a time (``recordPart(into:capture:)``), so the lists
/// stay the size of a chunk's worth (and in the cache) whatever the document's size. A part is
/// self-contained: names are classified and entity references in attribute values expanded while
/// recording, so the side that walks a part never touches the parser (which lets the parse run
/// ahead on a thread of its own, ``XMLParseAhead``).
///
/// The recording reproduces what `xmlTextReader` showed before: a text event is one text node of
/// the tree libxml2 would have built (characters up to the next tag, comment, processing
/// instruction or entity reference, CDATA merged in) and is left out when it is only white space;
/// the contents of entity references are not entered; attributes libxml2 adds from DTD defaults
/// are left out. The parser context and its dictionary (which the recorded names point into) live
/// as long as the recorder.
final class XMLRecorder {
    /// Input bytes parsed per chunk, unless asked otherwise (the tests and the fuzz harness make
    /// parts small, so that every boundary case between them is met).
    static let defaultChunkSize = 1 << 16

    private let chunkSize: Int

    /// The recording, behind a `let` pointer: the callbacks reach it through the parser
    /// context's `_private` and update it without any exclusivity or reference counting work.
    private let state: UnsafeMutablePointer<XMLRecording>
    private let input: UnsafePointer<CChar>
    private let inputCount: Int
    /// Bytes of the input handed to libxml2 so far, behind a `let` pointer like `state`.
    private let inputOffset: UnsafeMutablePointer<Int>

    /// Creates the parser for `input[0..<count]` (count in 1..<Int32.max, bytes that outlive the
    /// recorder); nil when libxml2 cannot create one.
    init?(input: UnsafePointer<CChar>, count: Int, options: Int32, chunkSize: Int = XMLRecorder.defaultChunkSize) {
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
        // CSDL has no use for a DTD, and its entities are how a small document expands into a
        // large model (and store): any DOCTYPE is refused, before its declarations take effect.
        handler.internalSubset = { context, _, _, _ in XMLRecording.of(context)?.pointee.refuse(XMLRecording.doctypeMessage) }
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
        self.chunkSize = max(chunkSize, 1)
        inputCount = count
        inputOffset = .allocate(capacity: 1)
        inputOffset.initialize(to: head)
        state = .allocate(capacity: 1)
        state.initialize(to: XMLRecording(context: context, expansionBudget: XMLRecording.expansionBudget(documentBytes: count)))
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
        state.pointee.lists.release()
        state.deinitialize(count: 1)
        state.deallocate()
        inputOffset.deallocate()
    }

    /// Whether the whole input has been parsed.
    private var isFinished: Bool { inputOffset.pointee >= inputCount }

    /// Parses on, a chunk at a time, until what is recorded can be handed over, and hands it over
    /// in `part`, whose previous lists are kept for recording the next part. `capture` is where
    /// libxml2's errors go on the calling thread; the first one stops the parse.
    ///
    /// A part never ends with the start of an element whose end is not seen yet (unless it is the
    /// last): whether a start is an empty element shows when its end is recorded, so the parse
    /// reads on. A run of text still open is carried over to the next part.
    func recordPart(into part: RecordedPart, capture: XMLErrorCapture) {
        while parseNextChunk() {
            if capture.first != nil || state.pointee.ranOutOfMemory || isFinished { break }
            guard case .start? = state.pointee.lists.events.last else { break }
        }
        part.lists.removeAll()
        swap(&part.lists, &state.pointee.lists)
        state.pointee.carryOpenTextRun(from: &part.lists)
        var outcome = RecordedPart.Outcome()
        outcome.error = capture.first
        outcome.ranOutOfMemory = state.pointee.ranOutOfMemory
        outcome.refusal = state.pointee.refusal
        outcome.isFinished = isFinished
        outcome.isWellFormed = state.pointee.context.map { $0.pointee.wellFormed != 0 } ?? false
        outcome.parserPosition = parserPosition
        part.outcome = outcome
    }

    /// Parses the next chunk of the input (the last one ends the document); false when the whole
    /// input was parsed already or recording ran out of memory. New events are appended.
    private func parseNextChunk() -> Bool {
        let offset = inputOffset.pointee
        guard offset < inputCount, !state.pointee.ranOutOfMemory, let context = state.pointee.context else { return false }
        let length = min(chunkSize, inputCount - offset)
        inputOffset.pointee = offset + length
        let isLast = inputOffset.pointee >= inputCount
        xmlParseChunk(context, input + offset, Int32(length), isLast ? 1 : 0)
        if isLast { state.pointee.endTextRun() }
        return true
    }

    /// libxml2's current line and column (for errors that carry no position).
    private var parserPosition: (line: Int, column: Int) {
        guard let input = state.pointee.context?.pointee.input else { return (0, 0) }
        return (Int(input.pointee.line), Int(input.pointee.col))
    }
}

/// The lists the SAX2 callbacks fill, and their state between callbacks.
struct XMLRecording {
    let context: xmlParserCtxtPtr?
    /// The part being recorded.
    var lists = RecordedLists()
    /// Element and attribute names classified by their dictionary address.
    let names: DictionaryNameCache
    var ranOutOfMemory = false
    /// Why the recording stopped when it was not memory (set together with ``ranOutOfMemory``).
    var refusal: String?
    /// Bytes that expanding entity references in attribute values may still add, document-wide.
    var expansionBudget: Int
    /// Offset in `lists.bytes` where the current run of text began, or -1 outside a run.
    var textRunStart = -1
    var textRunIsBlank = true
    /// The last namespace URI classified (a dictionary address) and its kind.
    var recentNamespace: UnsafePointer<UInt8>?
    var recentNamespaceKind = XMLNamespaceKind.none

    init(context: xmlParserCtxtPtr?, expansionBudget: Int = Int.max) {
        self.context = context
        self.expansionBudget = expansionBudget
        names = DictionaryNameCache(dictionary: context?.pointee.dict)
    }

    /// What expanding entity references in attribute values may add to a document of
    /// `documentBytes` bytes: 64 MiB plus 16 bytes per byte of the document. Declared entities
    /// that refer to each other can expand far beyond the document (libxml2 refuses the worst,
    /// the "billion laughs", as an entity loop, but lets a 100 KB document expand to hundreds of
    /// megabytes); beyond the budget the read fails with a `.metadata` error instead of filling memory.
    static func expansionBudget(documentBytes: Int) -> Int {
        (64 << 20) + 16 * max(documentBytes, 0)
    }

    /// Entity references inside entity replacement texts nested deeper than this (40) are refused.
    static let maxEntityDepth = 40

    /// Moves the run of text still open at the end of `previous` (a part being handed over) to
    /// the front of the current lists, which are empty.
    mutating func carryOpenTextRun(from previous: inout RecordedLists) {
        guard textRunStart >= 0 else { return }
        let start = textRunStart
        let length = previous.bytes.count - start
        if length > 0, let run = previous.bytes.pointer(at: start), !lists.bytes.append(run, count: length) {
            textRunStart = -1
            return stop()
        }
        previous.bytes.truncate(to: start)
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
        let firstAttribute = lists.attributes.count
        if let values, count > 0 {
            // Five pointers per attribute: local name, prefix, namespace URI, value, value end.
            for index in 0..<count {
                let fields = values + index * 5
                guard let value = fields[3], let valueEnd = fields[4] else { continue }
                let length = value.distance(to: valueEnd)
                guard length >= 0 else { continue }
                let offset = lists.bytes.count
                // libxml2 copies a value it had to decode and ends it with a NUL; a value read
                // straight from the input ends at its quote. Only a copy can hold references.
                let hasReferences = valueEnd.pointee == 0 && length > 0 && memchr(value, 0x26, length) != nil
                let recorded = hasReferences ? appendExpanded(value, length) : lists.bytes.append(value, count: length)
                guard recorded, lists.bytes.append(0) else { return stop() }
                let attribute = RecordedAttribute(localName: fields[0], prefix: fields[1], namespaceURI: fields[2],
                                                  kind: names.attribute(fields[0]), valueOffset: offset,
                                                  valueLength: lists.bytes.count - 1 - offset)
                guard lists.attributes.append(attribute) else { return stop() }
            }
        }
        let line = context.map { Int($0.pointee.input?.pointee.line ?? 0) } ?? 0
        let element = RecordedElement(localName: localName, prefix: prefix, namespaceURI: uri,
                                      namespaceKind: namespaceKind(of: uri), kind: names.element(localName), line: line,
                                      firstAttribute: firstAttribute, attributeCount: lists.attributes.count - firstAttribute)
        let index = lists.elements.count
        guard lists.elements.append(element), lists.events.append(.start(element: index)) else { return stop() }
    }

    /// Appends an attribute value that holds entity references (`&name;`, and `&#38;` for a
    /// literal `&`, which libxml2 leaves in place without entity substitution) with the references
    /// expanded: what libxml2's tree builder does with such a value (`xmlSAX2AttributeNs`), read
    /// back as a tree's attribute would be. False when memory runs out.
    ///
    /// The expansion is written straight into the recording in one pass, so it takes time in
    /// proportion to what it writes. (libxml2's `xmlNodeListGetString` appends each reference's
    /// text with `xmlStrcat`, which measures and copies the whole value so far: quadratic, a
    /// 23 KB document took 17 s.) A reference the pass does not know how to expand (an external
    /// entity, say) sends the value through libxml2 as before.
    private mutating func appendExpanded(_ value: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        let start = lists.bytes.count
        switch expand(value, length, depth: 0, valueStart: start) {
        case .done:
            expansionBudget -= max(lists.bytes.count - start - length, 0)
            return true
        case .outOfMemory:
            return false
        case .refused(let message):
            lists.bytes.truncate(to: start)
            refusal = message
            return false
        case .unhandled:
            lists.bytes.truncate(to: start)
            guard appendExpandedByLibXML2(value, length) else { return false }
            expansionBudget -= max(lists.bytes.count - start - length, 0)
            if expansionBudget < 0 {
                refusal = Self.overBudgetMessage
                return false
            }
            return true
        }
    }

    private static let overBudgetMessage = "entity references in attribute values expand to more text than the limit (64 MiB plus 16 bytes per byte of the document)"

    private enum Expansion {
        case done, outOfMemory, unhandled
        case refused(String)
    }

    /// Appends `value[0..<length]` with its references expanded: character references, the five
    /// predefined entities and internal entities declared in the DTD (their replacement text
    /// expanded the same way, `depth` levels down).
    private mutating func expand(_ value: UnsafePointer<UInt8>, _ length: Int, depth: Int, valueStart: Int) -> Expansion {
        guard depth <= Self.maxEntityDepth else {
            return .refused("entity references in an attribute value are nested deeper than \(Self.maxEntityDepth) levels")
        }
        var index = 0
        while index < length {
            // The run up to the next `&`, copied at once.
            let ampersand = memchr(value + index, 0x26, length - index).map { UnsafeRawPointer(value).distance(to: UnsafeRawPointer($0)) } ?? length
            if ampersand > index {
                guard lists.bytes.append(value + index, count: ampersand - index) else { return .outOfMemory }
            }
            guard ampersand < length else { break }
            guard let semicolon = memchr(value + ampersand, 0x3B, length - ampersand) else { return .unhandled }
            let end = UnsafeRawPointer(value).distance(to: UnsafeRawPointer(semicolon))
            let nameStart = ampersand + 1, nameLength = end - nameStart
            guard nameLength > 0 else { return .unhandled }
            if value[nameStart] == UInt8(ascii: "#") {
                guard let scalar = Self.characterReference(value + nameStart + 1, nameLength - 1) else { return .unhandled }
                var utf8: [UInt8] = []
                utf8.append(contentsOf: String(Character(scalar)).utf8)
                guard utf8.withUnsafeBufferPointer({ lists.bytes.append($0.baseAddress!, count: $0.count) }) else { return .outOfMemory }
            } else {
                var name = Array(UnsafeBufferPointer(start: value + nameStart, count: nameLength))
                name.append(0)
                guard let entity = name.withUnsafeBufferPointer({ xmlGetDocEntity(context?.pointee.myDoc, $0.baseAddress) }),
                      entity.pointee.etype == XML_INTERNAL_GENERAL_ENTITY || entity.pointee.etype == XML_INTERNAL_PREDEFINED_ENTITY,
                      let content = entity.pointee.content else { return .unhandled }
                let contentLength = Int(xmlStrlen(content))
                if contentLength > 0 {
                    let result = expand(UnsafePointer(content), contentLength, depth: depth + 1, valueStart: valueStart)
                    guard case .done = result else { return result }
                }
                if lists.bytes.count - valueStart > expansionBudget + length { return .refused(Self.overBudgetMessage) }
            }
            index = end + 1
        }
        return .done
    }

    /// The character of `#x41`/`#65` (without `&#` and `;`), nil when it is not a valid one.
    private static func characterReference(_ digits: UnsafePointer<UInt8>, _ length: Int) -> Unicode.Scalar? {
        guard length > 0 else { return nil }
        var radix: UInt32 = 10, index = 0
        if digits[0] == UInt8(ascii: "x") { radix = 16; index = 1 }
        guard index < length, length - index <= 8 else { return nil }
        var code: UInt32 = 0
        while index < length {
            let byte = digits[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            code = code * radix + digit
            index += 1
        }
        // A NUL would end the recorded value early; libxml2 rejects it anyway.
        guard code != 0 else { return nil }
        return Unicode.Scalar(code)
    }

    /// The value expanded by libxml2 (a node list made and read back), for references the pass
    /// above leaves alone.
    private mutating func appendExpandedByLibXML2(_ value: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        // Whatever the expansion reports is not about the document's form (the parser checked
        // that); it goes to a capture of its own rather than the parse's.
        let routing = ThreadXMLErrorRouting()
        defer { withExtendedLifetime(routing) {} }
        let document = context?.pointee.myDoc
        guard length < Int(Int32.max), let nodes = xmlStringLenGetNodeList(document, value, Int32(length)) else { return true }
        defer { xmlFreeNodeList(nodes) }
        guard let joined = xmlNodeListGetString(document, nodes, 1) else { return true }
        defer { cxml_free(joined) }
        return lists.bytes.append(joined, count: Int(xmlStrlen(joined)))
    }

    mutating func recordEnd() {
        endTextRun()
        guard !ranOutOfMemory else { return }
        // The last event is a start only when it is this element's and nothing but layout followed.
        if case .start(let index)? = lists.events.last {
            lists.events.replace(at: lists.events.count - 1, with: .empty(element: index))
            return
        }
        guard lists.events.append(.end) else { return stop() }
    }

    mutating func recordText(_ text: UnsafePointer<UInt8>?, _ length: Int) {
        guard let text, length > 0, !ranOutOfMemory else { return }
        if textRunStart < 0 {
            textRunStart = lists.bytes.count
            textRunIsBlank = true
        }
        guard lists.bytes.append(text, count: length) else { return stop() }
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
            lists.bytes.truncate(to: start)
            return
        }
        guard lists.bytes.append(0), lists.events.append(.text(offset: start)) else { return stop() }
    }

    /// Why a document with a DOCTYPE is refused.
    static let doctypeMessage = "the $metadata document has a DOCTYPE declaration (a DTD, perhaps with entity declarations): "
        + "CSDL uses none, and entities can make a small document expand without bound, so it is refused"

    /// Stops the parse, refusing the document with `message`.
    mutating func refuse(_ message: String) {
        if refusal == nil { refusal = message }
        stop()
    }

    /// Stops the parse when the recording cannot grow.
    mutating func stop() {
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
