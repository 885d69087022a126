/// An index an app asks for: one property, or a list of them, of an entity set
/// (`Agencies:City` or `Agencies:Country,City`; a complex property's leaf as `Address/City`).
///
/// The store makes it when it is created or opened (``LocalStore/declareIndexes(_:)``), keeps
/// it across sessions, and lists it in its status; reads that filter or order on its properties
/// use it.
public struct IndexDeclaration: Sendable, Hashable {
    public var entitySet: String
    /// Property paths, `/` between a complex property and its member, in index order.
    public var properties: [String]

    public init(entitySet: String, properties: [String]) {
        self.entitySet = entitySet
        self.properties = properties
    }

    /// Reads `SET:Prop1,Prop2` (the tool's `--index`, the C and Python options).
    /// - Throws: ``ODataError/Code/misuse`` when the text is not of that form.
    public init(parsing text: String) throws(ODataError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let set = parts.first, let list = parts.last, !set.isEmpty, !list.isEmpty else {
            throw ODataError(.misuse, "an index is written ENTITYSET:PROPERTY[,PROPERTY...], not '\(text)'")
        }
        self.init(entitySet: String(set), properties: list.split(separator: ",", omittingEmptySubsequences: false).map(String.init))
    }

    /// `SET:Prop1,Prop2`, as ``init(parsing:)`` reads it.
    public var text: String { entitySet + ":" + properties.joined(separator: ",") }

    /// The reason status gives for a declared index.
    static let declaredReason = "declared by the app"

    /// At most this many properties in one index (8): wider ones cost every write more than
    /// they save a read.
    public static let maximumProperties = 8

    /// The SQL index for this declaration on `schema`'s table, checked against the model.
    /// - Throws: ``ODataError/Code/misuse`` naming what is wrong: an unknown entity set or
    ///   property, a property kept as JSON (collections, geo values), a repeated property, none or
    ///   too many properties.
    func resolved(in schema: StoreSchema) throws(ODataError) -> ResolvedIndex {
        guard let table = schema.table(forEntitySet: entitySet) else {
            throw ODataError(.misuse, "cannot index '\(text)': the model has no entity set '\(entitySet)'")
        }
        guard !properties.isEmpty, properties.count <= Self.maximumProperties else {
            throw ODataError(.misuse, "cannot index '\(text)': an index has 1 to \(Self.maximumProperties) properties")
        }
        var columns: [StoredColumn] = []
        for property in properties {
            guard let column = table.column(named: property) else {
                throw ODataError(.misuse, "cannot index '\(text)': '\(entitySet)' has no stored property '\(property)'")
            }
            if case .json = column.content {
                throw ODataError(.misuse, "cannot index '\(text)': '\(property)' is kept as JSON (a collection or a geo value), which reads cannot compare")
            }
            guard !columns.contains(column) else {
                throw ODataError(.misuse, "cannot index '\(text)': '\(property)' is named twice")
            }
            columns.append(column)
        }
        return ResolvedIndex(declaration: self, table: table, columns: columns)
    }
}

/// A declaration checked against the schema: the SQL index it stands for.
struct ResolvedIndex {
    let declaration: IndexDeclaration
    let table: EntitySetTable
    let columns: [StoredColumn]

    /// `es/Agencies/index/Country,City`: under the table's name, so indexes of sets whose names
    /// differ only in case stay apart as their tables do.
    var name: String { table.name + "/index/" + declaration.properties.joined(separator: ",") }

    /// `CREATE INDEX IF NOT EXISTS` on the declared columns, then the key columns they do not
    /// include: reads order by `$orderby`, then the key, then `_ood_id` (SQLite keeps the rowid
    /// in every index), so a filter or an `$orderby` on the declared columns with `$top` reads
    /// the index in answer order and stops after `$top` rows. Each column keeps its own collation
    /// (decimals and instants compare by value), as the translated comparisons use it.
    var createStatement: String {
        let indexed = columns + table.keyColumns.filter { !columns.contains($0) }
        return "CREATE INDEX IF NOT EXISTS \(quoteIdentifier(name)) ON \(table.quotedName) ("
            + indexed.map(\.quotedName).joined(separator: ", ") + ")"
    }
}
