/// One result, handed from a store thread to a thread that waits for it
/// (``ODataStore/performAndWait(_:)``).
final class ResultBox<T: Sendable>: @unchecked Sendable {
    private let condition = ConditionLock()
    /// Guarded by `condition`.
    private var result: Result<T, ODataError>?

    func put(_ value: Result<T, ODataError>) {
        condition.withLock {
            result = value
            condition.broadcast()
        }
    }

    func take() -> Result<T, ODataError> {
        condition.withLock {
            while true {
                if let result { return result }
                condition.wait()
            }
        }
    }
}
