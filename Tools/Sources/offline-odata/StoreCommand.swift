import ArgumentParser
@_spi(Tool) import OfflineOData

/// `offline-odata store ...`: store files.
struct StoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store",
        abstract: "Create and inspect store files.",
        discussion: """
            A store file holds a service's $metadata, the defining requests (the reads whose \
            results it keeps), their data, and the queue of local changes.

            Examples:
              offline-odata store create travel.store \\
                  --metadata metadata.xml \\
                  --service http://127.0.0.1:8000/ \\
                  --defining Agencies=TravelagencyCollection
              offline-odata store info travel.store --json
              offline-odata store check travel.store
              offline-odata store load travel.store --defining Agencies page1.json

            Exit codes: those of each subcommand: 0 success; 1 an error (the message says which); \
            64 a usage error.
            """,
        subcommands: [Create.self, Info.self, Load.self, Check.self, StoreRekeyCommand.self, StoreConfigCommand.self, Indexes.self, StoreHandOverCommand.self]
    )

    /// `offline-odata store create STORE [--metadata FILE [--v2|--v4] --defining NAME=URL ...]`.
    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a store file, for a service when --metadata is given.",
            discussion: """
                Without --metadata, creates an empty store file (or checks that STORE already is one). \
                A store is made only where no file is: an empty file at STORE is refused unless \
                --accept-empty-file is given. \
                With --metadata, the store is made for that service: its tables come from the \
                $metadata document, which the store keeps, and --defining names the reads whose \
                results it will hold.

                Examples:
                  offline-odata store create travel.store
                  offline-odata store create travel.store \\
                      --metadata metadata.xml \\
                      --service http://127.0.0.1:8000/ \\
                      --defining "Agencies=TravelagencyCollection?\\$filter=country eq 'US'" \\
                      --defining "Flights=FlightCollection" \\
                      --index TravelagencyCollection:city \\
                      --index FlightCollection:carrid,fldate

                --index makes an index on properties of an entity set (a complex property's member \
                as address/city); `status` lists it and `explain` shows the reads that use it.

                Exit codes: 0 the store exists now; 1 an error (the message says which); 64 a usage error.
                """
        )

        @Argument(help: "The path of the store file.")
        var path: String

        @Option(help: "The service's $metadata document (a file).")
        var metadata: String?

        @Flag(help: "Speak OData V2 (the default is the document's version).")
        var v2 = false

        @Flag(help: "Speak OData V4 (the default is the document's version).")
        var v4 = false

        @Option(name: .customLong("defining"), help: "A defining request, NAME=URL (repeatable).")
        var definingRequests: [String] = []

        @Option(name: .customLong("streams"), help: "A defining request (by NAME) whose downloads also fetch the streams of its media entities (repeatable; docs/MEDIA.md).")
        var streamRequests: [String] = []

        @Option(name: .customLong("service"), help: "The service root URL, for later downloads.")
        var serviceRoot: String?

        @Flag(help: "An empty file at STORE (0 bytes, or an SQLite database without tables) may become the store.")
        var acceptEmptyFile = false

        @Option(name: .customLong("index"),
                help: "An index on properties of an entity set, SET:PROP[,PROP...] (repeatable); reads that filter or order on them use it.")
        var indexes: [String] = []

        func validate() throws {
            if v2 && v4 { throw ValidationError("--v2 and --v4 exclude each other") }
            if metadata == nil && (!definingRequests.isEmpty || !indexes.isEmpty || v2 || v4) {
                throw ValidationError("--defining, --index, --v2 and --v4 need --metadata")
            }
            for text in indexes {
                do {
                    _ = try IndexDeclaration(parsing: text)
                } catch {
                    throw ValidationError("--index takes SET:PROP[,PROP...], not '\(text)'")
                }
            }
            for text in definingRequests where !text.contains("=") {
                throw ValidationError("--defining takes NAME=URL, not '\(text)'")
            }
            for name in streamRequests where !definingRequests.contains(where: { $0.hasPrefix(name + "=") }) {
                throw ValidationError("--streams names no --defining request: '\(name)'")
            }
        }

        func run() throws {
            do throws(ODataError) {
                guard let metadata else {
                    try createEmpty()
                    return
                }
                let document = String(decoding: try readWholeFile(metadata), as: UTF8.self)
                let requests = definingRequests.map { text -> DefiningRequest in
                    let name = text.prefix { $0 != "=" }
                    return DefiningRequest(name: String(name), url: String(text.dropFirst(name.count + 1)),
                                           retrievesStreams: streamRequests.contains(String(name)))
                }
                var declarations: [IndexDeclaration] = []
                for text in indexes { declarations.append(try IndexDeclaration(parsing: text)) }
                var options = ODataStore.Options(path: path, serviceRoot: serviceRoot)
                options.creation = .createNew
                options.metadata = document
                options.dialect = v2 ? .v2 : v4 ? .v4 : nil
                options.definingRequests = requests
                options.indexes = declarations
                options.acceptsEmptyFile = acceptEmptyFile
                options.downloadsOnFirstOpen = false
                options.mode = .offline
                let store = try openStore(options)
                defer { store.close() }
                let description = try store.performAndWait(.describe)
                let dialect = description.dialect == .v4 ? "V4" : "V2"
                let indexNote = declarations.isEmpty ? "" : ", \(counted(declarations.count, "index", "indexes"))"
                print("\(path): created for \(description.namespaces.joined(separator: ", ")) (OData \(dialect), "
                      + "\(counted(description.entitySets.count, "entity set")), \(counted(requests.count, "defining request"))\(indexNote))")
            } catch {
                exitWithError(error)
            }
        }

        private func createEmpty() throws(ODataError) {
            let existed = fileExists(path)
            let store = try StoreFile(path: path, acceptsEmptyFile: acceptEmptyFile, key: ToolKey.current)
            defer { store.close() }
            let version = try store.formatVersion()
            let mode = try store.journalMode()
            let verb = existed ? "already a store" : "created"
            print("\(path): \(verb) (format version \(version), journal mode \(mode))")
        }
    }

    /// `offline-odata store info STORE [--json]`.
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what a store holds: its service model, dialect and defining requests.",
            discussion: """
                Read-only. 'store inspect' is the same command.

                Examples:
                  offline-odata store info travel.store
                  offline-odata store info travel.store --json

                Output: the store's service, service root and entity sets, then a table of the \
                defining requests; with --json one object: {"path", "formatVersion", "dialect", \
                "namespaces", "serviceRoot", "entitySets", "definingRequests": [{"name", "url", \
                "lastDownload", "hasDeltaLink"}], "encryption": null for a plain file, or \
                {"keyDerivation": "raw" or "pbkdf2-hmac-sha256", "iterations", "pageSize"}}. An \
                encrypted store needs its key (--key-file or --passphrase-env); nothing of the key \
                is shown.

                Exit codes: 0 success; 1 STORE does not exist or is not a store made for a service \
                (the message says why); 64 a usage error.
                """,
            aliases: ["inspect"]
        )

        @Argument(help: "The path of the store file.")
        var path: String

        @Flag(help: "Print JSON instead of text.")
        var json = false

        func run() throws {
            do throws(ODataError) {
                let store = try openStore(path: path)
                defer { store.close() }
                let description = try store.performAndWait(.describe)
                let requests = description.definingRequests
                let version = description.formatVersion
                let sets = description.entitySets
                let root = description.serviceRoot
                if json {
                    var writer = JSONWriter()
                    writer.beginObject()
                    writer.writeKey("path"); writer.writeString(path)
                    writer.writeKey("formatVersion"); writer.writeNumber(version)
                    writer.writeKey("dialect"); writer.writeString(description.dialect == .v4 ? "v4" : "v2")
                    writer.writeKey("namespaces"); writer.writeValue(.array(description.namespaces.map { .string($0) }))
                    writer.writeKey("serviceRoot"); root.map { writer.writeString($0) } ?? writer.writeNull()
                    writer.writeKey("entitySets"); writer.writeValue(.array(sets.map { .string($0) }))
                    writer.writeKey("definingRequests")
                    DefiningRequest.write(requests, to: &writer)
                    writer.writeKey("encryption")
                    if let encryption = description.encryption {
                        writer.beginObject()
                        writer.writeKey("keyDerivation"); writer.writeString(encryption.keyDerivation.rawValue)
                        writer.writeKey("iterations"); writer.writeNumber(encryption.iterations)
                        writer.writeKey("pageSize"); writer.writeNumber(encryption.pageSize)
                        writer.endObject()
                    } else {
                        writer.writeNull()
                    }
                    writer.endObject()
                    print(String(decoding: writer.bytes, as: UTF8.self))
                } else {
                    print("store:            \(path) (format version \(version))")
                    print("service:          \(description.namespaces.joined(separator: ", ")), OData \(description.dialect == .v4 ? "V4" : "V2")")
                    print("service root:     \(root ?? "(not set)")")
                    print("entity sets:      \(sets.count): \(sets.joined(separator: ", "))")
                    print("encryption:       \(Self.describe(description.encryption))")
                    printDefiningRequests(requests)
                }
            } catch {
                exitWithError(error, json: json)
            }
        }

        /// "none", or the kind of key an encrypted store needs (never anything of the key).
        static func describe(_ encryption: StoreEncryption?) -> String {
            guard let encryption else { return "none (a plain file)" }
            switch encryption.keyDerivation {
            case .raw: return "AES-256-GCM, a raw 256-bit key"
            case .pbkdf2SHA256: return "AES-256-GCM, a passphrase (PBKDF2-HMAC-SHA256, \(encryption.iterations) iterations)"
            }
        }
    }

    /// `offline-odata store load STORE --defining NAME FILE...`.
    struct Load: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Load pages of an OData JSON response into a store, as a defining request's result.",
            discussion: """
                The files are the pages of one response, in order, in the store's dialect (V4 JSON \
                or V2 JSON); they are loaded in one transaction, all or nothing.

                Example:
                  offline-odata store load travel.store --defining Agencies \\
                      page1.json page2.json

                Exit codes: 0 loaded; 1 a page could not be loaded (nothing was changed); 64 a usage error.
                """
        )

        @Argument(help: "The path of the store file.")
        var path: String

        @Option(name: .customLong("defining"), help: "The defining request the pages answer.")
        var definingRequest: String

        @Flag(help: "The pages are the whole result: remove what the request held and they lack.")
        var full = false

        @Argument(help: "The page files, in order.")
        var files: [String]

        func validate() throws {
            if files.isEmpty { throw ValidationError("give at least one page file") }
        }

        func run() throws {
            do throws(ODataError) {
                let store = try openStore(path: path)
                defer { store.close() }
                // One page file in memory at a time: the transaction holds the rest in SQLite.
                let remaining = WaitingState(files[...])
                let entities = try store.performAndWait(.load(definingRequest: definingRequest, fullRefresh: full) {
                    () throws(ODataError) -> [UInt8]? in
                    guard let file = remaining.value.popFirst() else { return nil }
                    return try readWholeFile(file)
                })
                print("loaded \(definingRequest): \(counted(entities, "entity", "entities")) from \(counted(files.count, "page"))")
            } catch {
                exitWithError(error)
            }
        }
    }
}
