/// What an index for a read would hold: the properties its `$filter` compares with values and its
/// `$orderby` sorts on, in the order an index serves them (equalities, then one range or the
/// order). The engine counts the shapes it sees and indexes one that repeats
/// (``LocalStore/createAutomaticIndexes()``).
struct ReadShape: Hashable, Sendable {
    let entitySet: String
    /// Column names (``StoredColumn/name``), at most ``maximumProperties``.
    let properties: [String]

    static let maximumProperties = 4

    /// The shape of `request` on `schema`, or nil when no index would serve it better than the
    /// key's: no comparison with a value on a property of the addressed set, a read that starts
    /// with the key, or a property that no index can hold (kept as JSON).
    static func of(_ request: BoundRequest, schema: StoreSchema) -> ReadShape? {
        guard let path = request.path, let table = schema.table(forEntitySet: path.entitySet) else { return nil }
        var equal: [String] = [], range: [String] = []
        if let filter = request.options.filter { collect(filter, equal: &equal, range: &range) }
        var properties = equal
        if let bound = range.first(where: { !equal.contains($0) }) {
            properties.append(bound)
        } else {
            for item in request.options.orderBy {
                guard let name = plainProperty(item.expression) else { break }
                if !properties.contains(name) { properties.append(name) }
            }
        }
        properties = Array(properties.prefix(maximumProperties))
        guard let first = properties.first, first != table.keyColumns.first?.name else { return nil }
        for name in properties {
            guard let column = table.column(named: name) else { return nil }
            if case .json = column.content { return nil }
        }
        return ReadShape(entitySet: path.entitySet, properties: properties)
    }

    /// The comparisons with a value among the top-level `and` terms of `filter`.
    private static func collect(_ filter: BoundExpression, equal: inout [String], range: inout [String]) {
        var pending = [filter]
        while let expression = pending.popLast() {
            switch expression.kind {
            case .and(let lhs, let rhs):
                pending.append(rhs)
                pending.append(lhs)
            case .comparison(let op, let lhs, let rhs):
                let name = plainProperty(lhs) ?? plainProperty(rhs)
                guard let name, isValue(lhs) || isValue(rhs) else { continue }
                switch op {
                case .eq: if !equal.contains(name) { equal.append(name) }
                case .ne: break
                default: if !range.contains(name) { range.append(name) }
                }
            case .in(let operand, _):
                if let name = plainProperty(operand), !equal.contains(name) { equal.append(name) }
            default:
                continue
            }
        }
    }

    /// A property of the addressed entity itself (no navigation, not a lambda variable).
    private static func plainProperty(_ expression: BoundExpression) -> String? {
        guard case .member(let member) = expression.kind, member.scope == 0, member.navigations.isEmpty,
              !member.propertyPath.isEmpty else { return nil }
        return member.propertyPath.joined(separator: "/")
    }

    private static func isValue(_ expression: BoundExpression) -> Bool {
        if case .literal = expression.kind { return true }
        return false
    }
}

/// The read shapes a store saw since it last wrote them down: counted on the read path (memory
/// only, under a lock), written to `ood_read_shape` outside it (``LocalStore/createAutomaticIndexes()``).
final class ReadShapeCounter: @unchecked Sendable {
    private let lock = Lock()
    private var counts: [ReadShape: Int] = [:]
    /// The count at which a shape makes automatic indexes due (``takeDue()``); nil: never.
    private let dueAt: Int?
    private var due = false
    /// The shapes that made the job due already in this session. Each does so once: the job
    /// writes its count down and indexes it if no index serves it, so asking again would only
    /// repeat a write transaction (and its sync to disk) every `dueAt` reads of a shape an index
    /// already serves. Later counts still reach the table, at the next job, download or close.
    private var madeDue: Set<ReadShape> = []

    init(dueAt: Int? = nil) {
        self.dueAt = dueAt
    }

    func record(_ request: BoundRequest, schema: StoreSchema) {
        guard let shape = ReadShape.of(request, schema: schema) else { return }
        record(shape)
    }

    func record(_ shape: ReadShape) {
        lock.withLock {
            counts[shape, default: 0] += 1
            if counts[shape] == dueAt, madeDue.insert(shape).inserted { due = true }
        }
    }

    /// Whether a shape reached the count since the last call (once each time it does): the store
    /// API then makes the automatic indexes in a job of their own, off the read path.
    func takeDue() -> Bool {
        lock.withLock {
            let wasDue = due
            due = false
            return wasDue
        }
    }

    /// The counts so far, which the counter forgets.
    func take() -> [ReadShape: Int] {
        lock.withLock {
            let taken = counts
            counts = [:]
            return taken
        }
    }

    /// Gives back counts that could not be written, so none is lost.
    func restore(_ taken: [ReadShape: Int]) {
        lock.withLock { for (shape, count) in taken { counts[shape, default: 0] += count } }
    }
}
