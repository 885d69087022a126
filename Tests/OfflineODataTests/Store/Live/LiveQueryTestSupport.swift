#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) @testable import OfflineOData

/// Collects a watch's answers from the store's thread, for assertions on the test's thread.
final class AnswerLog: @unchecked Sendable {
    private let state = ConditionLock()
    private var answers: [Result<StoreResponse, ODataError>] = []

    func record(_ answer: Result<StoreResponse, ODataError>) {
        state.withLock {
            answers.append(answer)
            state.broadcast()
        }
    }

    var all: [Result<StoreResponse, ODataError>] { state.withLock { answers } }
    var count: Int { state.withLock { answers.count } }

    /// The last answer's body as text ("error: ..." for a failed read).
    var lastText: String? {
        guard let last = all.last else { return nil }
        switch last {
        case .success(let response): return response.text
        case .failure(let error): return "error: \(error.code): \(error.message)"
        }
    }

    /// Waits (up to `seconds`) until `predicate` holds for the answers; woken by each answer.
    func wait(seconds: Double = 30, until predicate: ([Result<StoreResponse, ODataError>]) -> Bool) -> Bool {
        let deadline = monotonicSeconds() + seconds
        return state.withLock {
            while !predicate(answers) && monotonicSeconds() < deadline { state.wait(until: deadline) }
            return predicate(answers)
        }
    }

    /// Waits until at least `count` answers came.
    func wait(for count: Int, seconds: Double = 30) -> Bool { wait(seconds: seconds) { $0.count >= count } }
}

/// The keys (`agencynum`) of the agencies in a V4 collection answer, in order.
func agencyKeys(_ answer: Result<StoreResponse, ODataError>?) -> [String]? {
    guard case .success(let response)? = answer, let document = try? JSONValue.parse(response.body),
          let value = document["value"]?.arrayValue else { return nil }
    return value.compactMap { $0["agencynum"]?.stringValue }
}

extension ODataStore {
    /// Waits until every watch of the store ran for every change seen so far.
    func liveQueriesSettle(seconds: Double = 30) -> Bool {
        liveQueries.current?.waitUntilIdle(seconds: seconds) ?? true
    }
}
