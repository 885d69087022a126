/// A value behind a pthread mutex, for state the store's threads share.
///
/// Used instead of `Synchronization.Mutex`, whose Linux implementation (futex calls) the thread
/// sanitizer cannot see through: every access under it would be reported as a race, hiding real
/// ones (`make tsan`). A pthread mutex is what the sanitizer understands. Package-wide, so that
/// the C boundary (`OfflineODataC`) guards its shared tables with the same primitive.
package final class Protected<Value>: @unchecked Sendable {
    private let lock = Lock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<T, E: Error>(_ body: (inout Value) throws(E) -> T) throws(E) -> T {
        try lock.withLock { () throws(E) -> T in try body(&value) }
    }
}
