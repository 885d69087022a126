import OfflineOData

/// Live queries whose answers come decoded into the caller's `Decodable` types, as the reads of
/// ``ODataStore/entities(_:as:headers:decoder:)`` do (docs/ARCHITECTURE.md, "Live queries").
///
/// ```swift
/// for try await agencies in try store.watchEntities("TravelagencyCollection?$filter=city eq 'Boston'", as: Agency.self) {
///     show(agencies)
/// }
/// ```
extension ODataStore {
    /// The entities of the collection read `url`, decoded as `T`: the current ones at once, then
    /// again after each commit that changed the answer (see ``ODataStore/watch(_:interval:)``).
    /// An answer that does not fit `T` ends the sequence with ``ODataError/Code/semantic``.
    public func watchEntities<T: Decodable & Sendable>(_ url: String, as type: T.Type = T.self,
                                                       interval: Double = ODataStore.defaultLiveQueryInterval,
                                                       decoder: ODataDecoder = ODataDecoder()) throws(ODataError) -> LiveValues<[T]> {
        LiveValues(answers: try watch(url, interval: interval)) { response throws(ODataError) in
            try Self.decoding([T].self, url: url) { try decoder.decodeEntities(T.self, from: response) }
        }
    }

    /// The entity `url` (addressed by its key), decoded as `T`, again after each change. An entity
    /// that is no longer there ends the sequence with ``ODataError/Code/notFound``.
    public func watchEntity<T: Decodable & Sendable>(_ url: String, as type: T.Type = T.self,
                                                     interval: Double = ODataStore.defaultLiveQueryInterval,
                                                     decoder: ODataDecoder = ODataDecoder()) throws(ODataError) -> LiveValues<T> {
        LiveValues(answers: try watch(url, interval: interval)) { response throws(ODataError) in
            try Self.decoding(T.self, url: url) { try decoder.decodeEntity(T.self, from: response) }
        }
    }

    /// How many entities the collection `url` has (`/$count` added as ``count(_:headers:)`` does),
    /// again after each change.
    public func watchCount(_ url: String, interval: Double = ODataStore.defaultLiveQueryInterval) throws(ODataError) -> LiveValues<Int> {
        LiveValues(answers: try watch(Self.countURL(url), interval: interval)) { response throws(ODataError) in
            try Self.decoding(Int.self, url: url) { try ODataDecoder().decodeCount(from: response) }
        }
    }
}

/// The decoded answers of a watched read, as an `AsyncSequence` (``ODataStore/watchEntities(_:as:interval:decoder:)``,
/// ``ODataStore/watchEntity(_:as:interval:decoder:)``, ``ODataStore/watchCount(_:interval:)``): each answer of its
/// ``LiveAnswers``, decoded when the loop takes it.
public struct LiveValues<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = Value
    let answers: LiveAnswers
    let decode: @Sendable (StoreResponse) throws(ODataError) -> Value

    init(answers: LiveAnswers, decode: @escaping @Sendable (StoreResponse) throws(ODataError) -> Value) {
        self.answers = answers
        self.decode = decode
    }

    /// The watch, for its counts and to stop it without ending the loop.
    public var query: LiveQuery { answers.query }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: LiveAnswers.AsyncIterator
        let decode: @Sendable (StoreResponse) throws(ODataError) -> Value

        public mutating func next() async throws -> Value? {
            guard let response = try await base.next() else { return nil }
            return try decode(response)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: answers.makeAsyncIterator(), decode: decode) }
}
