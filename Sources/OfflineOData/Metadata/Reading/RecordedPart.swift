/// The flat lists one stretch of the document was recorded into: what the CSDL reader walks.
struct RecordedLists {
    var events = RawList<RecordedEvent>()
    var elements = RawList<RecordedElement>()
    var attributes = RawList<RecordedAttribute>()
    /// Attribute values and texts, each NUL-terminated.
    var bytes = RawList<UInt8>()

    /// Empties the lists and keeps their memory for the next stretch.
    mutating func removeAll() {
        events.truncate(to: 0)
        elements.truncate(to: 0)
        attributes.truncate(to: 0)
        bytes.truncate(to: 0)
    }

    mutating func release() {
        events.release()
        elements.release()
        attributes.release()
        bytes.release()
    }
}

/// One stretch of the document (a chunk of input or a few) as the SAX2 parse recorded it, and
/// how the parse stood when it was handed over. Parts go round between the parsing side
/// (``XMLRecorder/recordPart(into:capture:)``) and the walking side (``XMLStream``), which may be
/// two threads (``XMLParseAhead``): a part is touched by one side at a time.
final class RecordedPart {
    var lists = RecordedLists()
    var outcome = Outcome()

    struct Outcome {
        /// The first error libxml2 raised while this part (or one before it) was parsed.
        var error: CapturedXMLError?
        var ranOutOfMemory = false
        /// Why the recording stopped, when it was a limit rather than memory.
        var refusal: String?
        /// The whole input has been parsed.
        var isFinished = false
        /// Whether libxml2 has found the document well-formed so far.
        var isWellFormed = true
        /// libxml2's line and column after this part, for errors that carry no position.
        var parserPosition = (line: 0, column: 0)

        /// No part comes after this one.
        var isLast: Bool { isFinished || ranOutOfMemory || error != nil }
    }

    deinit { lists.release() }
}
