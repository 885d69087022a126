/// State a progress closure changes on the store's sync thread while the command's own thread
/// waits for the operation (``ODataStore/performAndWait(_:)``): one thread uses it at a time, the
/// wait ordering the two, so it needs no lock.
final class WaitingState<Value>: @unchecked Sendable {
    var value: Value

    init(_ value: Value) { self.value = value }
}
