import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata metadata FILE [--json]`: reads a `$metadata` document and summarises it.
struct MetadataCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metadata",
        abstract: "Read a $metadata document (EDMX/CSDL, OData V2 to V4.01) and summarise it.",
        discussion: """
            Prints the OData version, the namespaces and the counts of entity types, complex types, \
            enum types, entity sets, singletons, function imports, action imports, functions and \
            actions; with --json, the same as one JSON object. A document that cannot be read \
            prints the error with its line and column. Nothing is fetched over the network.

            Examples:
              offline-odata metadata metadata.xml
              offline-odata metadata metadata-v2.xml --json
              curl -s 'http://127.0.0.1:8000/$metadata' -o metadata.xml && \\
                  offline-odata metadata metadata.xml

            Output with --json, one object: {"file", "version", "edmxVersion", "namespaces", \
            "entityTypes", "complexTypes", "enumTypes", "entitySets", "singletons", \
            "functionImports", "actionImports", "functions", "actions", "diagnostics": \
            [{"message", "line", "column"}]}; an unreadable document gives {"error": {"code", "status", \
            "message", "line", "column"}} on standard output (as every --json error).

            Exit codes: 0 the document was read; 1 the document is broken (or FILE cannot be \
            read); 64 the command line was wrong.
            """
    )

    @Argument(help: "The $metadata document (a file).")
    var file: String

    @Flag(help: "Print the summary as JSON.")
    var json = false

    @Flag(help: "Treat defects that real services publish (see the summary's diagnostics) as errors.")
    var strict = false

    func run() throws {
        let model: MetadataModel
        do throws(ODataError) {
            model = try MetadataReader.read(try readWholeFile(file), options: MetadataReader.Options(isStrict: strict))
        } catch {
            exitWithError(error, json: json)
        }
        if json {
            printJSON { writeSummary(model, to: &$0) }
        } else {
            print(summaryText(model))
        }
    }

    private func summaryText(_ model: MetadataModel) -> String {
        let counts = model.counts
        var lines = [
            "\(file): OData \(model.version) (EDMX \(model.edmxVersion))",
            "namespaces: \(model.namespaces.joined(separator: ", "))",
            "entity types: \(counts.entityTypes)",
            "complex types: \(counts.complexTypes)",
            "enum types: \(counts.enumTypes)",
            "entity sets: \(counts.entitySets)",
            "singletons: \(counts.singletons)",
            "function imports: \(counts.functionImports)",
            "action imports: \(counts.actionImports)",
            "functions: \(counts.functions)",
            "actions: \(counts.actions)",
        ]
        if !model.diagnostics.isEmpty {
            lines.append("tolerated defects: \(model.diagnostics.count)")
            for diagnostic in model.diagnostics.prefix(10) { lines.append("  \(diagnostic)") }
            if model.diagnostics.count > 10 { lines.append("  ... (--strict rejects the document at the first)") }
        }
        return lines.joined(separator: "\n")
    }

    private func writeSummary(_ model: MetadataModel, to writer: inout JSONWriter) {
        let counts = model.counts
        writer.beginObject()
        writer.writeKey("file"); writer.writeString(file)
        writer.writeKey("version"); writer.writeString(model.version.rawValue)
        writer.writeKey("edmxVersion"); writer.writeString(model.edmxVersion)
        writer.writeKey("namespaces"); writer.writeValue(.array(model.namespaces.map { .string($0) }))
        let numbers: [(String, Int)] = [
            ("entityTypes", counts.entityTypes), ("complexTypes", counts.complexTypes), ("enumTypes", counts.enumTypes),
            ("entitySets", counts.entitySets), ("singletons", counts.singletons), ("functionImports", counts.functionImports),
            ("actionImports", counts.actionImports), ("functions", counts.functions), ("actions", counts.actions),
        ]
        for (key, value) in numbers { writer.writeKey(key); writer.writeNumber(value) }
        writer.writeKey("diagnostics")
        writer.beginArray()
        for diagnostic in model.diagnostics { writeError(diagnostic, to: &writer) }
        writer.endArray()
        writer.endObject()
    }

    /// `{"message", "line"?, "column"?}`: a defect's position is there only when the reader knows it.
    private func writeError(_ error: ODataError, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.writeKey("message"); writer.writeString(error.message)
        if let line = error.line { writer.writeKey("line"); writer.writeNumber(line) }
        if let column = error.column { writer.writeKey("column"); writer.writeNumber(column) }
        writer.endObject()
    }
}
