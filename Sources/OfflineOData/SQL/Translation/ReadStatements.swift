/// Every statement a bound read may run: its plan's main and count statements and, for each
/// `$expand` at any depth, the statement of its related entities and of their count. For what a
/// read depends on (live queries compile these to learn the tables they read), not for running:
/// expand statements are translated for one parent.
extension ReadTranslation {
    static func allStatements(_ request: BoundRequest, schema: StoreSchema) throws(ODataError) -> [SQLQuery] {
        let plan = try plan(request, schema: schema)
        var statements = [plan.main, plan.count].compactMap { $0 }
        try appendExpandStatements(request.options.expand, schema: schema, to: &statements)
        return statements
    }

    private static func appendExpandStatements(_ expands: [BoundExpand], schema: StoreSchema,
                                               to statements: inout [SQLQuery]) throws(ODataError) {
        for expand in expands {
            var translator = SQLTranslator(schema: schema, now: currentInstantText())
            statements.append(try translator.expandQuery(expand, parentCount: 1))
            if expand.options.includeCount && expand.navigation.isCollection {
                var counter = SQLTranslator(schema: schema, now: currentInstantText())
                statements.append(try counter.expandCountQuery(expand, parentCount: 1))
            }
            try appendExpandStatements(expand.options.expand, schema: schema, to: &statements)
        }
    }
}
