/// The document's functions and actions by qualified name, gathered by the reader as it goes.
///
/// The reader fills it while the parse thread is still busy, so validation finds it made
/// (``ModelValidator``'s `declareNames`) instead of building the names, the table and the faults
/// after the parse, on the path every read waits for. A name declared both as a function and as
/// an action gets its fault here, in document order, kept per schema: validation tolerates each
/// where it always did, so diagnostics and strict-mode errors come in the same order.
struct OperationDeclarationTable {
    /// Each qualified name's kinds (overloads share a name).
    private(set) var kinds: [String: OperationKinds] = [:]
    /// Every operation's qualified name, in document order.
    private(set) var names: [String] = []
    /// Per schema, in document order: the faults of names declared as both kinds.
    private(set) var conflicts: [[ODataError]] = []

    /// Starts the next schema's list of faults.
    mutating func beginSchema() {
        conflicts.append([])
    }

    /// Declares `operation` of the schema begun last; `fault` builds the fault of a kind conflict
    /// (with its line and column), only when there is one.
    mutating func declare(_ operation: Operation, in namespace: String, fault: (String) -> ODataError) {
        let name = namespace + "." + operation.name
        names.append(name)
        var declared = kinds[name] ?? OperationKinds()
        if !declared.isEmpty && !declared.contains(operation.kind), !conflicts.isEmpty {
            // A function and an action of the same name (Microsoft Graph has `browse`).
            conflicts[conflicts.count - 1].append(fault("\(name) is declared both as a function and as an action"))
        }
        declared.insert(operation.kind)
        kinds[name] = declared
    }
}
