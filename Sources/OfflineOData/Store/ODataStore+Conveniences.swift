/// The request conveniences an application uses most, on top of ``ODataStore/perform(_:)``:
/// `async` reads and writes, and ``executeAndWait(_:)`` for callers without `async` or closures.
extension ODataStore {
    /// Runs `request` where the router sends it (see ``StoreOperation/request(_:)``).
    public func execute(_ request: ODataRequest) async throws(ODataError) -> StoreResponse {
        try await perform(.request(request))
    }

    /// Runs `request` and waits for its answer.
    ///
    /// - Throws: ``ODataError/Code/busy`` when called from one of this store's own callbacks
    ///   (a completion or an event handler), where waiting could wait for itself; use
    ///   ``start(_:completion:)`` there.
    public func executeAndWait(_ request: ODataRequest) throws(ODataError) -> StoreResponse {
        // A read on an open store with no write still queued runs on the caller's thread: it has a
        // read connection of its own, and the hand-over to a store thread would cost more than
        // many reads take.
        if let method = try? RequestMethod(parsing: request.method), method.isRead,
           !StoreThreadMarker.isCurrentThreadOwned(by: owner), let dispatcher = dispatcherWithoutQueuedWrites() {
            let response = try dispatcher.execute(request, method: method, cancellation: HTTPCancellation()).response
            startAutomaticIndexesIfDue(dispatcher)
            return response
        }
        return try performAndWait(.request(request))
    }

    /// Waits until the store is open, and says how it is.
    ///
    /// - Throws: the error opening failed with; ``ODataError/Code/busy`` from a callback of this store.
    @discardableResult
    public func waitUntilOpen() throws(ODataError) -> StoreStatus {
        try performAndWait(.status)
    }

    /// Reads `url`.
    public func get(_ url: String, headers: [HTTPHeader] = []) async throws(ODataError) -> StoreResponse {
        try await execute(ODataRequest(method: "GET", url: url, headers: headers))
    }

    /// Creates an entity in the collection `url` from its JSON.
    public func create(_ url: String, body: [UInt8], transactionID: String? = nil) async throws(ODataError) -> StoreResponse {
        try await execute(ODataRequest(method: "POST", url: url, body: body, transactionID: transactionID))
    }

    /// Changes the entity `url`: the members of `body` only (`PATCH`, the default; V2 services
    /// also take `MERGE`), or the whole entity (`PUT`).
    public func update(_ url: String, body: [UInt8], method: String = "PATCH", headers: [HTTPHeader] = [],
                       transactionID: String? = nil) async throws(ODataError) -> StoreResponse {
        try await execute(ODataRequest(method: method, url: url, body: body, headers: headers, transactionID: transactionID))
    }

    /// Deletes the entity `url`.
    public func delete(_ url: String, headers: [HTTPHeader] = [], transactionID: String? = nil) async throws(ODataError) -> StoreResponse {
        try await execute(ODataRequest(method: "DELETE", url: url, headers: headers, transactionID: transactionID))
    }
}
