@_spi(Tool) import OfflineOData

/// Prints one JSON document on standard output: every `--json` goes through here, so each
/// subcommand's output is exactly one line that `json.loads` or `jq` can read.
func printJSON(_ write: (inout JSONWriter) -> Void) {
    var writer = JSONWriter()
    write(&writer)
    print(String(decoding: writer.bytes, as: UTF8.self))
}

/// A failed command's `--json` document, the one shape of every command's error:
/// `{"error":{"code","status","message"[,"httpStatus"][,"offset"][,"line","column"]}}`, on standard
/// output; the message goes to standard error as without `--json`.
func printJSONError(_ error: ODataError) {
    printJSON { writer in
        writer.beginObject()
        writer.writeKey("error")
        writer.beginObject()
        writer.writeKey("code"); writer.writeString(error.code.cName)
        writer.writeKey("status"); writer.writeNumber(Int(error.code.rawValue))
        writer.writeKey("message"); writer.writeString(error.message)
        if let status = error.httpStatus { writer.writeKey("httpStatus"); writer.writeNumber(status) }
        if let offset = error.offset { writer.writeKey("offset"); writer.writeNumber(offset) }
        if let line = error.line { writer.writeKey("line"); writer.writeNumber(line) }
        if let column = error.column { writer.writeKey("column"); writer.writeNumber(column) }
        writer.endObject()
        writer.endObject()
    }
}
