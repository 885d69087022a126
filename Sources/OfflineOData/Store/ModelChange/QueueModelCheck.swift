/// Decides, request by request, which queued changes a new model would refuse, and ties each to
/// the differences that cause it (raising their impact to
/// ``ModelDifference/Impact/breaksPendingChanges``).
///
/// A request is refused when its URL binds under the old model and not under the new (a removed
/// set, navigation or function import, a key whose type changed), when its body names a property
/// the new type no longer has or whose type changed, or when it creates an entity without a
/// property the new model makes mandatory. Requests whose URL did not bind under the old model
/// either (one naming an entity created offline by its Content-ID, `$1`) are judged by their
/// body and entity set alone.
struct QueueModelCheck {
    let old: MetadataModel
    let new: MetadataModel
    let dialect: Dialect

    /// The refused requests' ids in queue order; `differences` get their requests and impacts.
    func refusals(of queue: [QueuedRequest], differences: inout [ModelDifference]) -> [Int64] {
        guard !differences.isEmpty else { return [] }
        let oldResolver = RequestResolver(model: old, dialect: dialect, limits: LocalReader.defaultParserLimits)
        let newResolver = RequestResolver(model: new, dialect: dialect, limits: LocalReader.defaultParserLimits)
        var refused: [Int64] = []
        for request in queue {
            let causes = self.causes(of: request, oldResolver: oldResolver, newResolver: newResolver, differences: differences)
            guard !causes.isEmpty else { continue }
            refused.append(request.id)
            for index in causes where differences.indices.contains(index) {
                differences[index].impact = .breaksPendingChanges
                differences[index].queuedRequests.append(request.id)
            }
        }
        return refused
    }

    /// The indexes of the differences that make the new model refuse `request`; empty when it
    /// takes it.
    private func causes(of request: QueuedRequest, oldResolver: RequestResolver, newResolver: RequestResolver,
                        differences: [ModelDifference]) -> Set<Int> {
        var causes: Set<Int> = []
        let setName = request.entitySet
        let oldType = setName.flatMap { old.entityType(ofEntitySet: $0) }
        let oldTypes = Set(oldType.map { old.typeHierarchy(of: $0).map(\.qualifiedName) } ?? [])
        for (index, difference) in differences.enumerated() {
            switch difference.kind {
            case .entitySetRemoved, .entitySetTypeChanged:
                if difference.entitySet == setName { causes.insert(index) }
            default:
                break
            }
        }
        // The body: properties the new type lacks or types differently; mandatory ones a create lacks.
        if let body = request.body, case .object(let members)? = try? JSONValue.parse(body) {
            let named = Set(members.map(\.key).filter { !$0.contains("@") && !$0.hasPrefix("__") })
            for (index, difference) in differences.enumerated() where difference.type.map(oldTypes.contains) == true {
                guard let member = difference.member else { continue }
                switch difference.kind {
                case .propertyRemoved, .propertyTypeChanged, .navigationRemoved, .navigationChanged:
                    if named.contains(member) { causes.insert(index) }
                case .propertyMadeMandatory, .propertyAdded:
                    let mandatory = difference.kind == .propertyMadeMandatory || difference.impact != .compatible
                    if request.method == .post, mandatory, !named.contains(member), !isKey(member, of: oldType) {
                        causes.insert(index)
                    }
                default:
                    break
                }
            }
        }
        // The URL: it bound under the old model and does not under the new.
        if case .success = oldResolver.resolve(method: request.method, url: request.url).binding,
           case .failure = newResolver.resolve(method: request.method, url: request.url).binding, causes.isEmpty {
            for (index, difference) in differences.enumerated() {
                let aboutType = difference.type.map(oldTypes.contains) == true
                let named = difference.member.map { request.url.contains($0) } == true
                switch difference.kind {
                case .keyChanged, .baseTypeChanged, .entityTypeRemoved:
                    if aboutType { causes.insert(index) }
                case .propertyTypeChanged:
                    if aboutType, let member = difference.member, isKey(member, of: oldType) { causes.insert(index) }
                case .navigationRemoved, .navigationChanged, .functionImportRemoved, .functionImportChanged,
                     .operationRemoved, .operationChanged:
                    if named { causes.insert(index) }
                default:
                    break
                }
            }
        }
        return causes
    }

    private func isKey(_ name: String, of type: EntityType?) -> Bool {
        guard let type else { return false }
        return old.key(of: type).contains { $0.name == name }
    }
}
