internal import CLibXML2

/// The first error libxml2 reported for one parse.
struct CapturedXMLError {
    var message: String
    var line: Int
    var column: Int
}

/// Collects libxml2's structured errors for one parse. Only the parsing thread touches it.
final class XMLErrorCapture {
    private(set) var first: CapturedXMLError?

    func record(_ error: xmlError) {
        guard first == nil else { return }
        // Warnings do not make a document unreadable.
        guard error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        var message = error.message.map { String(cString: $0) } ?? "unknown XML error"
        while message.last == "\n" || message.last == " " { message.removeLast() }
        first = CapturedXMLError(message: message, line: Int(error.line), column: Int(error.int2))
    }
}

/// Routes every libxml2 error raised on the calling thread into an ``XMLErrorCapture`` for as
/// long as this object lives, so that libxml2 never prints to the host's stderr.
///
/// libxml2 keeps its error handlers per thread. The thread's structured handler receives the
/// parser's errors (the SAX handler has no `serror` of its own) and those raised without a parser
/// context (encoding conversion, "I/O error : encoder error", tree functions expanding entity
/// references in attribute values); the thread's generic handler drops the few that only go
/// there (see `cxml_silence_generic_errors`). Both previous handlers are put back by `deinit`.
/// No process-wide handler is installed.
final class ThreadXMLErrorRouting {
    let capture = XMLErrorCapture()
    private let captureReference: Unmanaged<XMLErrorCapture>
    private let previousHandler: xmlStructuredErrorFunc?
    private let previousContext: UnsafeMutableRawPointer?
    private let previousGenericErrors: cxml_generic_error_state

    init() {
        captureReference = Unmanaged.passRetained(capture)
        previousHandler = __xmlStructuredError()?.pointee
        previousContext = __xmlStructuredErrorContext()?.pointee
        let record: xmlStructuredErrorFunc = { context, error in
            guard let context, let error else { return }
            Unmanaged<XMLErrorCapture>.fromOpaque(context).takeUnretainedValue().record(error.pointee)
        }
        xmlSetStructuredErrorFunc(captureReference.toOpaque(), record)
        previousGenericErrors = cxml_silence_generic_errors()
    }

    deinit {
        xmlSetStructuredErrorFunc(previousContext, previousHandler)
        cxml_restore_generic_errors(previousGenericErrors)
        captureReference.release()
    }
}
