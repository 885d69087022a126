#if canImport(Glibc)
import Glibc
#endif

/// The SQL of one bound read: the main statement and, where asked, the count statement.
struct ReadPlan {
    var main: SQLQuery?
    var count: SQLQuery?
    /// The statements hold the instant of `now()`, so they answer this read only (see ``ReadPlanCache``).
    var readsClock = false
    /// The statements were chosen by the indexes there were (``SQLTranslator/readsIndexes``): they
    /// answer only while the store's indexes stay those of ``IndexedColumns/version``.
    var readsIndexes = false
}

/// Entry point of the translation stage: a bound read to its statements.
enum ReadTranslation {
    static func plan(_ request: BoundRequest, schema: StoreSchema, now: String = currentInstantText(),
                     names: SQLNameCache? = nil, indexed: IndexedColumns = .none,
                     probe: SQLiteConnection? = nil) throws(ODataError) -> ReadPlan {
        guard let path = request.path else {
            throw ODataError(.unsupported, "only reads of entity sets, entities and their properties are translated to SQL")
        }
        var plan = ReadPlan()
        switch request.target {
        case .collection:
            var translator = SQLTranslator(schema: schema, now: now, names: names, indexed: indexed, probe: probe)
            plan.main = try translator.selectQuery(path, request.options)
            plan.readsClock = translator.readsClock
            plan.readsIndexes = translator.readsIndexes
            if request.options.includeCount {
                var counter = SQLTranslator(schema: schema, now: now, names: names, indexed: indexed, probe: probe)
                plan.count = try counter.countQuery(path, request.options)
                plan.readsClock = plan.readsClock || counter.readsClock
            }
        case .entity:
            var translator = SQLTranslator(schema: schema, now: now, names: names, indexed: indexed, probe: probe)
            plan.main = try translator.selectQuery(path, request.options)
            plan.readsClock = translator.readsClock
            plan.readsIndexes = translator.readsIndexes
        case .property(let propertyPath, _):
            var translator = SQLTranslator(schema: schema, now: now, names: names, indexed: indexed, probe: probe)
            plan.main = try translator.selectQuery(path, request.options, selecting: [propertyPath])
            plan.readsClock = translator.readsClock
            plan.readsIndexes = translator.readsIndexes
        case .count:
            // `/$count` counts the collection its `$filter` leaves (URL Conventions §4.8): paging
            // options do not apply to it, so a request with them is refused, not half obeyed.
            if request.options.top != nil || request.options.skip != nil {
                throw ODataError(.syntax, "$top and $skip do not apply to /$count, which counts the whole filtered collection: "
                                 + "use $count=true on the collection read instead")
            }
            var counter = SQLTranslator(schema: schema, now: now, names: names, indexed: indexed, probe: probe)
            plan.count = try counter.countQuery(path, request.options)
            plan.readsClock = counter.readsClock
        default:
            throw ODataError(.unsupported, "this request is not a read of stored entities")
        }
        try prepareForSQLite(&plan.main)
        try prepareForSQLite(&plan.count)
        return plan
    }

    /// A statement with many parameters gets anonymous placeholders (linear to compile). How
    /// many a statement may have is SQLite's limit (`SQLITE_MAX_VARIABLE_NUMBER`: 32,766 by
    /// default, 250,000 in Debian's build); beyond it, preparing fails with "too many SQL variables".
    private static func prepareForSQLite(_ query: inout SQLQuery?) throws(ODataError) {
        guard var statement = query, statement.parameters.count > SQLQuery.anonymousPlaceholderThreshold else { return }
        try statement.makePlaceholdersAnonymous()
        query = statement
    }

    /// The SQL and parameters the store runs for `request`.
    static func explain(_ request: BoundRequest, schema: StoreSchema, indexed: IndexedColumns = .none,
                        probe: SQLiteConnection? = nil) throws(ODataError) -> ReadExplanation {
        let plan = try plan(request, schema: schema, indexed: indexed, probe: probe)
        guard let query = plan.main ?? plan.count else { throw ODataError(.internalError, "empty read plan") }
        return ReadExplanation(sql: query.sql, parameters: query.parameters.map(\.explained),
                               countSQL: plan.main == nil ? nil : plan.count?.sql)
    }

    /// The current instant in the stored form of `Edm.DateTimeOffset`, for `now()`.
    static func currentInstantText() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var value = TemporalValue(epochMilliseconds: Int64(now.tv_sec) * 1000)
        value.ticks = Int(now.tv_nsec / 100)
        return value.canonicalText
    }
}
