/// Checks that a defining request is a read of a collection the model has.
///
/// The offline store holds the results of collection reads only (DESIGN.md §4.2): a function
/// import, an action, `$batch` or `$metadata` cannot be a defining request.
enum DefiningRequestCheck {
    static func check(_ request: DefiningRequest, model: MetadataModel, dialect: Dialect) throws(ODataError) {
        let syntax: ODataRequestSyntax
        do {
            syntax = try ODataURLParser(dialect: dialect).parse(request.url)
        } catch {
            throw ODataError(error.code, "defining request '\(request.name)': \(error.message)", offset: error.offset)
        }
        guard let first = syntax.path.segments.first, case .name(let name) = first.kind else {
            throw ODataError(.semantic, "defining request '\(request.name)' does not read a collection: '\(request.url)'")
        }
        if model.entitySet(named: name) != nil || model.singleton(named: name) != nil {
            try refuseStream(request, syntax, model: model, dialect: dialect)
            return
        }
        if model.functionImport(named: name) != nil || model.actionImport(named: name) != nil {
            throw ODataError(.unsupported, "defining request '\(request.name)' names the operation '\(name)': "
                             + "a defining request must read a collection, and the offline store does not run operations",
                             offset: first.range.offset)
        }
        throw ODataError(.semantic, "defining request '\(request.name)': the service has no entity set '\(name)'",
                         offset: first.range.offset)
    }

    /// A stream (`Set(key)/$value`, a stream property) is not a read of entities: its entity is
    /// the defining request, with its streams retrieved (docs/MEDIA.md). A URL that does not bind
    /// is left to the download to report, as before.
    private static func refuseStream(_ request: DefiningRequest, _ syntax: ODataRequestSyntax, model: MetadataModel,
                                     dialect: Dialect) throws(ODataError) {
        guard let bound = try? ODataBinder(model: model, dialect: dialect).bind(syntax) else { return }
        switch bound.target {
        case .mediaValue, .streamProperty:
            let entity = request.url.split(separator: "/").dropLast().joined(separator: "/")
            throw ODataError(.unsupported, "defining request '\(request.name)' reads a stream ('\(request.url)'): make its entity "
                             + "'\(entity)' the defining request, with its streams retrieved")
        default:
            return
        }
    }
}
