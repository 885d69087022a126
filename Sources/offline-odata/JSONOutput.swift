import OfflineOData

/// Prints one JSON document on standard output: every `--json` goes through here, so each
/// subcommand's output is exactly one line that `json.loads` or `jq` can read.
func printJSON(_ write: (inout JSONWriter) -> Void) {
    var writer = JSONWriter()
    write(&writer)
    print(String(decoding: writer.bytes, as: UTF8.self))
}
