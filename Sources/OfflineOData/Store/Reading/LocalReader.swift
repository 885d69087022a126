/// Answers OData reads from the store's tables: parse → bind → translate → step → write JSON,
/// in the store's dialect (V4 JSON, or V2 JSON with `d`, `results`, `__metadata`, `__deferred`).
///
/// Not thread-safe: the store calls it under its own lock, with the connection it owns.
package final class LocalReader {
    package let model: MetadataModel
    package let schema: StoreSchema
    package let dialect: Dialect
    /// The service root, ending in `/`, for V4 context URLs and V2 `__metadata.uri`.
    package let serviceRoot: String
    let parser: ODataURLParser
    let binder: ODataBinder
    let statements = StatementCache()
    let layouts = LayoutCache()
    let names = SQLNameCache()
    /// Reads understood before, by URL (see ``ReadPlanCache``).
    let plans = ReadPlanCache()
    /// The store's indexed columns as last read (``currentIndexes(on:)``), which decide the SQL of
    /// a paged navigation filter.
    private(set) var indexed = IndexedColumns.none
    /// Where the shapes of the reads are counted, for automatic indexes; nil counts nothing.
    var readShapes: ReadShapeCounter?
    /// SQLite's default limit on host parameters is 32,766; expand batches stay well below it.
    static let expandChunkSize = 500

    /// The limits on a read's URL unless the store is given others (``ODataStore/Options/requestLimits``):
    /// 1 MiB of URL, 100 levels of nesting, 20,000 operators in one expression.
    package static let defaultParserLimits = ODataURLParser.Limits(maxDepth: 100, maxLength: 1 << 20)

    package init(model: MetadataModel, schema: StoreSchema, dialect: Dialect, serviceRoot: String,
                parserLimits: ODataURLParser.Limits = LocalReader.defaultParserLimits) {
        self.model = model
        self.schema = schema
        self.dialect = dialect
        self.serviceRoot = serviceRoot.hasSuffix("/") ? serviceRoot : serviceRoot + "/"
        parser = ODataURLParser(dialect: dialect, limits: parserLimits)
        binder = ODataBinder(model: model, dialect: dialect)
    }

    /// Parses and binds `url`, rejecting what the offline store does not answer.
    package func bind(url: String) throws(ODataError) -> BoundRequest {
        try Self.readable(ResolvedRequest.answerableOffline(RequestResolver(parser: parser, binder: binder).bind(url)))
    }

    /// Whether `request` is answered by one statement (no `$count` beside the entities, no
    /// `$expand`), so it needs no read transaction of its own to see one state of the store.
    static func isOneStatement(_ request: BoundRequest) -> Bool {
        switch request.target {
        case .count: return true
        case .collection, .entity, .property: return request.options.expand.isEmpty && !request.options.includeCount
        default: return false
        }
    }

    /// `request`, unless it addresses what the store itself serves rather than its entities.
    static func readable(_ request: BoundRequest) throws(ODataError) -> BoundRequest {
        switch request.target {
        case .metadata, .batch, .serviceDocument:
            throw ODataError(.unsupported, "the local reader answers reads of entities; $metadata, $batch and the service document are served by the store")
        default:
            return request
        }
    }

    /// The SQL the store runs for `url`, with its parameters.
    /// (The indexes as last read, see ``indexed``; ``LocalStore/explain(url:)`` reads them.)
    package func explain(url: String) throws(ODataError) -> ReadExplanation {
        try ReadTranslation.explain(bind(url: url), schema: schema, indexed: indexed)
    }

    /// The store's indexed columns now: read again when its schema changed since they were read
    /// (an index made or dropped, by this connection or another).
    func currentIndexes(on db: SQLiteConnection) throws(ODataError) -> IndexedColumns {
        if try schemaVersion(on: db) != indexed.version { indexed = try IndexedColumns.read(on: db) }
        return indexed
    }

    /// `PRAGMA schema_version`, through the kept statement (a read checks it when its SQL depends on indexes).
    private func schemaVersion(on db: SQLiteConnection) throws(ODataError) -> Int64 {
        let statement = try statements.statement("PRAGMA schema_version", on: db)
        defer { statement.rewind() }
        try statement.bind([])
        guard try statement.step() else { return 0 }
        return statement.int(at: 0)
    }

    /// Whether a kept read still answers as translated: its SQL did not depend on the indexes, or
    /// they are those it was translated with.
    private func isCurrent(_ kept: ReadPlanCache.Entry, on db: SQLiteConnection) throws(ODataError) -> Bool {
        guard kept.plan.readsIndexes else { return true }
        return try schemaVersion(on: db) == kept.indexesVersion
    }

    /// Reads `url` from the store in `file`, under the file's connection lock.
    package func read(url: String, in file: StoreFile) throws(ODataError) -> ReadResult {
        try file.withConnection { db throws(ODataError) in try read(url: url, on: db) }
    }

    /// Whether every entity `url` can return is one the defining request `definingRequest` brings
    /// (proven from the filters; false means "not proven", see `ScopeCheck`).
    package func isInsideScope(url: String, definingRequest: String) throws(ODataError) -> Bool {
        ScopeCheck.isInside(read: try bind(url: url), defining: try bind(url: definingRequest))
    }

    /// The main statement's SQL for `url` (parse, bind and translate, nothing run): for tools and
    /// benchmarks that want the translation alone.
    /// (The indexes as last read, see ``indexed``.)
    package func translatedSQL(url: String) throws(ODataError) -> String {
        let plan = try ReadTranslation.plan(bind(url: url), schema: schema, names: names, indexed: indexed)
        return (plan.main ?? plan.count)?.sql ?? ""
    }

    /// Reads `url`: parsed, bound and translated only when this reader has not kept it.
    func read(url: String, on db: SQLiteConnection) throws(ODataError) -> ReadResult {
        if let kept = plans.entry(for: url), try isCurrent(kept, on: db) { return try read(kept, on: db) }
        return try read(bind(url: url), url: url, on: db)
    }

    /// Reads the resolved request `resolved`: a read this reader kept is answered from what it
    /// kept, without taking the bound request out of the resolution; any other is read as bound.
    func read(_ resolved: ResolvedRequest, on db: SQLiteConnection) throws(ODataError) -> ReadResult {
        if let kept = plans.entry(for: resolved.url), try isCurrent(kept, on: db) { return try read(kept, on: db) }
        return try read(resolved.boundForOfflineStore(), url: resolved.url, on: db)
    }

    /// Reads the bound request `bound` (of `url`, for the V2 answer's entity URIs): translate
    /// (unless kept), step, write JSON; it is not parsed or bound again.
    func read(_ bound: BoundRequest, url: String, on db: SQLiteConnection) throws(ODataError) -> ReadResult {
        let understood: ReadPlanCache.Entry
        if let kept = plans.entry(for: url), try isCurrent(kept, on: db) {
            understood = kept
        } else {
            understood = try understand(bound, url: url, on: db)
            plans.keep(understood, for: url)
        }
        return try read(understood, on: db)
    }

    private func read(_ understood: ReadPlanCache.Entry, on db: SQLiteConnection) throws(ODataError) -> ReadResult {
        if let shape = understood.readShape { readShapes?.record(shape) }
        do {
            return try answer(understood, on: db)
        } catch {
            throw Self.requestFault(error)
        }
    }

    /// The statements, shape and path of the bound read of `url`.
    private func understand(_ bound: BoundRequest, url: String, on db: SQLiteConnection) throws(ODataError) -> ReadPlanCache.Entry {
        let request = try Self.readable(bound)
        let indexed = try currentIndexes(on: db)
        let plan: ReadPlan
        do {
            plan = try ReadTranslation.plan(request, schema: schema, names: names, indexed: indexed, probe: db)
        } catch {
            throw Self.requestFault(error)
        }
        var pathEnd = url.utf8.endIndex
        if let mark = url.utf8.firstIndex(where: { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) { pathEnd = mark }
        let entry = ReadPlanCache.Entry(request: request, plan: plan, readShape: ReadShape.of(request, schema: schema),
                                        answerShape: AnswerShape(request, model: model),
                                        pathText: String(url[..<pathEnd]), indexesVersion: indexed.version)
        if dialect == .v4, let path = request.path {
            switch request.target {
            case .collection: entry.context = contextURL(path.entitySet + selectSuffix(request.options.select))
            case .entity: entry.context = contextURL(path.entitySet + selectSuffix(request.options.select) + "/$entity")
            default: break
            }
        }
        return entry
    }

    /// A division or modulo by zero in the data (`Price div Seats` where Seats is 0) is a fault
    /// of the request, as OData says (URL Conventions §5.1.1.2), not of the store: SQLite reports
    /// it from the engine's arithmetic functions as a failed statement, which this names again.
    /// So is a `matchesPattern` pattern from the data that is no valid (or a refused) pattern.
    static func requestFault(_ error: ODataError) -> ODataError {
        if error.code == .storage, let start = error.message.firstRange(of: SQLFunctions.patternFaultPrefix) {
            return ODataError(.semantic, String(error.message[start.lowerBound...]))
        }
        if error.code == .storage, let start = error.message.firstRange(of: SQLFunctions.arithmeticFaultPrefix) {
            return ODataError(.semantic, String(error.message[start.upperBound...]))
        }
        guard error.code == .storage, error.message.hasSuffix(SQLFunctions.divisionByZeroMessage) else { return error }
        return ODataError(.semantic, "division by zero in the request: div, divby or mod has a zero divisor for an entity in "
                          + "the store, which OData makes an error of the request")
    }

    /// The answer to a read understood, with what it holds.
    private func answer(_ understood: ReadPlanCache.Entry, on db: SQLiteConnection) throws(ODataError) -> ReadResult {
        var result = try written(understood, on: db)
        result.shape = understood.answerShape
        return result
    }

    private func written(_ understood: ReadPlanCache.Entry, on db: SQLiteConnection) throws(ODataError) -> ReadResult {
        let request = understood.request, plan = understood.plan, pathText = understood.pathText
        switch request.target {
        case .count:
            guard let count = plan.count else { throw ODataError(.internalError, "no count statement") }
            return ReadResult(body: Array(String(try runCount(count, on: db)).utf8), contentType: ReadResult.textContentType)
        case .collection:
            return try readCollection(request, plan, kept: understood.layout, keptStatement: understood.statement,
                                      context: understood.context, on: db)
        case .entity:
            return try readEntity(request, plan, kept: understood.layout, keptStatement: understood.statement,
                                  context: understood.context, on: db, pathText: pathText)
        case .property(let path, let rawValue):
            return try readProperty(request, plan, path: path, rawValue: rawValue, on: db, pathText: pathText)
        default:
            throw ODataError(.unsupported, "not a read of stored entities")
        }
    }

    func runCount(_ query: SQLQuery, on db: SQLiteConnection) throws(ODataError) -> Int64 {
        let statement = try statements.statement(query.sql, on: db)
        try statement.bind(query.parameters)
        defer { statement.rewind() }
        guard try statement.step() else { return 0 }
        return statement.int(at: 0)
    }

    func contextURL(_ fragment: String) -> String { serviceRoot + "$metadata#" + fragment }

    func selectSuffix(_ select: [[String]]?) -> String {
        guard let select, !select.isEmpty else { return "" }
        return "(" + select.map { $0.joined(separator: "/") }.joined(separator: ",") + ")"
    }
}
