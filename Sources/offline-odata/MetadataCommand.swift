import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif
import OfflineOData

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

            Example:
              offline-odata metadata service-metadata.xml
              offline-odata metadata service-metadata.xml --json

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
        guard let bytes = readWholeFile(file) else {
            exitWithError(ODataError(.cannotOpen, "cannot read \(file)"))
        }
        let model: MetadataModel
        do {
            model = try MetadataReader.read(bytes, options: MetadataReader.Options(isStrict: strict))
        } catch {
            if json {
                var standardError = StandardErrorStream()
                print(errorJSON(error), to: &standardError)
                OfflineODataTool.exit(withError: ExitCode(1))
            }
            exitWithError(error)
        }
        print(json ? summaryJSON(model) : summaryText(model))
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

    private func summaryJSON(_ model: MetadataModel) -> String {
        let counts = model.counts
        let fields: [(String, String)] = [
            ("file", jsonString(file)),
            ("version", jsonString(model.version.rawValue)),
            ("edmxVersion", jsonString(model.edmxVersion)),
            ("namespaces", "[" + model.namespaces.map(jsonString).joined(separator: ",") + "]"),
            ("entityTypes", "\(counts.entityTypes)"),
            ("complexTypes", "\(counts.complexTypes)"),
            ("enumTypes", "\(counts.enumTypes)"),
            ("entitySets", "\(counts.entitySets)"),
            ("singletons", "\(counts.singletons)"),
            ("functionImports", "\(counts.functionImports)"),
            ("actionImports", "\(counts.actionImports)"),
            ("functions", "\(counts.functions)"),
            ("actions", "\(counts.actions)"),
            ("diagnostics", "[" + model.diagnostics.map(errorObject).joined(separator: ",") + "]"),
        ]
        return "{" + fields.map { jsonString($0.0) + ":" + $0.1 }.joined(separator: ",") + "}"
    }

    private func errorJSON(_ error: ODataError) -> String {
        "{\"error\":" + errorObject(error) + "}"
    }

    private func errorObject(_ error: ODataError) -> String {
        var fields = ["\"message\":" + jsonString(error.message)]
        if let line = error.line { fields.append("\"line\":\(line)") }
        if let column = error.column { fields.append("\"column\":\(column)") }
        return "{" + fields.joined(separator: ",") + "}"
    }
}

/// A JSON string literal: quotes, backslashes and control characters escaped (RFC 8259).
func jsonString(_ text: String) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case let control where control.value < 0x20:
            let hex = String(control.value, radix: 16)
            result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}

/// The bytes of a file, or nil when it cannot be read.
func readWholeFile(_ path: String) -> [UInt8]? {
    guard let handle = fopen(path, "rb") else { return nil }
    defer { fclose(handle) }
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, handle) }
        if count == 0 { break }
        result.append(contentsOf: chunk[0..<count])
    }
    return ferror(handle) == 0 ? result : nil
}
