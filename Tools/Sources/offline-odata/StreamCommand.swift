#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata stream get STORE URL [--output FILE] [--json]` and
/// `offline-odata stream put STORE SET FILE --type TYPE [--properties JSON] [--json]` and
/// `offline-odata stream replace STORE URL FILE --type TYPE [--json]` (issue 35, docs/MEDIA.md).
struct StreamCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stream",
        abstract: "Media streams the offline store holds (docs/MEDIA.md).",
        subcommands: [Get.self, Put.self, Replace.self]
    )

    /// `offline-odata stream get`.
    struct Get: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say where a media entity's stream is kept, or copy it out.",
            discussion: """
                Offline and read-only: the stream is the file the store downloaded with a defining \
                request that retrieves streams (store create --streams NAME). Without --output, \
                prints its path, length and content type; with --output FILE, copies it there a \
                buffer at a time ("-" for standard output).

                Examples:
                  offline-odata stream get media.store 'Documents(1)/$value'
                  offline-odata stream get media.store 'Documents(1)' --output photo.jpg
                  offline-odata stream get media.store 'Documents(1)' --json

                Output: "PATH  LENGTH bytes  CONTENT-TYPE"; with --json {"path", "length", \
                "contentType", "etag", "sha256"}.

                Exit codes: 0 success; 1 no such entity or no stream for it (not downloaded), \
                STORE not a store, or FILE not writable; 64 a usage error.
                """
        )

        @Argument(help: "The path of the store file.")
        var path: String

        @Argument(help: "The media entity by its key, with or without /$value (Documents(1)/$value), or a stream property (Inspections(1)/photo).")
        var url: String

        @Option(help: "Copy the stream to this file (\"-\" for standard output).")
        var output: String?

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            do throws(ODataError) {
                let store = try openStore(path: path, mode: .offline)
                defer { store.close() }
                let stream = try store.performAndWait(.streamFile(url: url))
                if let output {
                    try copy(stream.path, to: output)
                    if output == "-" { return }
                }
                if json {
                    printJSON { writer in
                        writer.beginObject()
                        writer.writeKey("path"); writer.writeString(stream.path)
                        writer.writeKey("length"); writer.writeNumber(Int(stream.length))
                        writer.writeKey("contentType"); writer.writeString(stream.contentType)
                        writer.writeKey("etag"); if let etag = stream.etag { writer.writeString(etag) } else { writer.writeNull() }
                        writer.writeKey("sha256"); if let hash = stream.sha256 { writer.writeString(hash) } else { writer.writeNull() }
                        writer.endObject()
                    }
                } else if output == nil {
                    print("\(terminalSafe(stream.path))  \(stream.length) bytes  \(terminalSafe(stream.contentType))")
                }
            } catch {
                exitWithError(error, json: json)
            }
        }

        /// Copies the file at `source` to `target` one buffer at a time.
        private func copy(_ source: String, to target: String) throws(ODataError) {
            let input = open(source, O_RDONLY | O_CLOEXEC)
            guard input >= 0 else { throw ODataError(.notFound, "cannot read the stream's file '\(source)'") }
            defer { close(input) }
            let out = target == "-" ? STDOUT_FILENO : open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard out >= 0 else { throw ODataError(.cannotOpen, "cannot write '\(target)'") }
            defer { if out != STDOUT_FILENO { close(out) } }
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
                guard count >= 0 else { throw ODataError(.storage, "cannot read the stream's file '\(source)'") }
                if count == 0 { return }
                var offset = 0
                while offset < count {
                    let written = buffer.withUnsafeBytes { write(out, $0.baseAddress.map { $0 + offset }, count - offset) }
                    guard written > 0 else { throw ODataError(.storage, "cannot write '\(target)'") }
                    offset += written
                }
            }
        }
    }

    /// `offline-odata stream put`.
    struct Put: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a media entity offline from a file, uploaded later as a media POST then a PATCH.",
            discussion: """
                Offline: the file is copied into the store's stream folder and the entity queued \
                (the service assigns its key; the store gives a provisional one until the upload). \
                'offline-odata upload' sends the stream, then the properties, then reads the entity \
                back for its key and ETags.

                Examples:
                  offline-odata stream put media.store Documents photo.jpg --type image/jpeg \\
                      --properties '{"title":"Site visit"}'

                Output: the entity as stored; with --json {"status", "location", "entity"}.

                Exit codes: 0 success; 1 not a media set, FILE unreadable, past the stream limits, \
                or STORE not a store; 64 a usage error.
                """
        )

        @Argument(help: "The path of the store file.")
        var path: String

        @Argument(help: "The media entity set.")
        var entitySet: String

        @Argument(help: "The file holding the stream.")
        var file: String

        @Option(name: .customLong("type"), help: "The stream's content type (image/jpeg, application/pdf, ...).")
        var contentType: String

        @Option(help: "The entity's properties as a JSON object, without the key.")
        var properties = "{}"

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            do throws(ODataError) {
                let store = try openStore(path: path, mode: .offline)
                defer { store.close() }
                let response = try store.performAndWait(.createMedia(entitySet: entitySet, contentPath: file, contentType: contentType,
                                                                     properties: Array(properties.utf8)))
                let body = String(decoding: response.body, as: UTF8.self)
                if json {
                    printJSON { writer in
                        writer.beginObject()
                        writer.writeKey("status"); writer.writeNumber(response.status)
                        writer.writeKey("location")
                        if let location = response.header("Location") { writer.writeString(location) } else { writer.writeNull() }
                        writer.writeKey("entity"); writer.writeString(body)
                        writer.endObject()
                    }
                } else {
                    print(terminalSafe(body))
                }
            } catch {
                exitWithError(error, json: json)
            }
        }
    }

    /// `offline-odata stream replace`.
    struct Replace: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace a stream offline from a file, uploaded later as a PUT streamed from it.",
            discussion: """
                Offline: the file is copied into the store's stream folder and, for a stream the \
                service has, a PUT queued ('offline-odata upload' sends it with the entity's ETag \
                as If-Match, then reads the entity back). A media entity created offline and not \
                uploaded yet sends the new content with its create instead.

                Examples:
                  offline-odata stream replace media.store 'Documents(1)' scan.pdf --type application/pdf
                  offline-odata stream replace media.store 'Inspections(1)/photo' site.jpg --type image/jpeg

                Output: "replaced URL (LENGTH bytes, TYPE)"; with --json {"status", "url", \
                "length", "contentType"}.

                Exit codes: 0 success; 1 no such entity, not a stream, FILE unreadable, past the \
                stream limits, or STORE not a store; 64 a usage error.
                """
        )

        @Argument(help: "The path of the store file.")
        var path: String

        @Argument(help: "The media entity by its key, with or without /$value (Documents(1)/$value), or a stream property (Inspections(1)/photo).")
        var url: String

        @Argument(help: "The file holding the new stream.")
        var file: String

        @Option(name: .customLong("type"), help: "The stream's content type (image/jpeg, application/pdf, ...).")
        var contentType: String

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            do throws(ODataError) {
                let store = try openStore(path: path, mode: .offline)
                defer { store.close() }
                let response = try store.performAndWait(.replaceStream(url: url, contentPath: file, contentType: contentType))
                let stream = try store.performAndWait(.streamFile(url: url))
                if json {
                    printJSON { writer in
                        writer.beginObject()
                        writer.writeKey("status"); writer.writeNumber(response.status)
                        writer.writeKey("url"); writer.writeString(url)
                        writer.writeKey("length"); writer.writeNumber(Int(stream.length))
                        writer.writeKey("contentType"); writer.writeString(stream.contentType)
                        writer.endObject()
                    }
                } else {
                    print("replaced \(terminalSafe(url)) (\(stream.length) bytes, \(terminalSafe(stream.contentType)))")
                }
            } catch {
                exitWithError(error, json: json)
            }
        }
    }
}
