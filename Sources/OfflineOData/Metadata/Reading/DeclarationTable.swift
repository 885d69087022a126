/// The document's declared names (`Namespace.Name` of every type, term, container and
/// association) with their places, built by the reader as it goes.
///
/// The reader builds it while the parse thread is still busy, so validation finds it made
/// (``ModelValidator``'s `declareNames`). A name declared twice only marks the table: validation
/// then declares every name itself, in its own order, and reports the duplicate as it always has.
struct DeclarationTable {
    private(set) var entries: [String: DeclaredElement] = [:]
    private(set) var hasDuplicate = false

    mutating func declare(_ namespace: String, _ name: String, _ element: DeclaredElement) {
        if entries.updateValue(element, forKey: namespace + "." + name) != nil { hasDuplicate = true }
    }

    /// The table, or nil when a name was declared twice.
    var complete: [String: DeclaredElement]? { hasDuplicate ? nil : entries }
}
