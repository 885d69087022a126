import FoundationEssentials
import OfflineOData

/// Reads into the caller's `Decodable` types and writes from its `Encodable` values, in the
/// store's dialect (see ``ODataDecoder`` for the EDM forms read, ``ODataStore/encodedBody(_:)``
/// for those written).
///
/// ```swift
/// struct Agency: Codable { var agencynum: String; var name: String; var city: String; var country: String }
/// let agencies = try await store.entities("TravelagencyCollection?$filter=city eq 'Boston'", as: Agency.self)
/// let agency = try await store.entity("TravelagencyCollection('00000055')", as: Agency.self)
/// let count = try await store.count("TravelagencyCollection/$count")
/// try await store.create("TravelagencyCollection", from: Agency(agencynum: "99000001", name: "New", city: "Boston", country: "US"))
/// ```
extension ODataStore {
    /// Reads the collection `url` and decodes its entities as `T`.
    ///
    /// - Throws: the read's ``ODataError``; ``ODataError/Code/semantic`` when the answer is no
    ///   collection or an entity does not fit `T` (the message names the member).
    public func entities<T: Decodable>(_ url: String, as type: T.Type = T.self, headers: [HTTPHeader] = [],
                                       decoder: ODataDecoder = ODataDecoder()) async throws(ODataError) -> [T] {
        let response = try await get(url, headers: headers)
        return try Self.decoding([T].self, url: url) { try decoder.decodeEntities(T.self, from: response) }
    }

    /// Reads the entity `url` (addressed by its key) and decodes it as `T`.
    ///
    /// - Throws: the read's ``ODataError`` (``ODataError/Code/notFound`` when there is no such
    ///   entity); ``ODataError/Code/semantic`` when the answer is no entity or does not fit `T`.
    public func entity<T: Decodable>(_ url: String, as type: T.Type = T.self, headers: [HTTPHeader] = [],
                                     decoder: ODataDecoder = ODataDecoder()) async throws(ODataError) -> T {
        let response = try await get(url, headers: headers)
        return try Self.decoding(T.self, url: url) { try decoder.decodeEntity(T.self, from: response) }
    }

    /// How many entities the collection at `url` has (its `$filter` applied): `/$count` is added
    /// to the path unless it ends with it, as Python's `Store.count` does; a collection read that
    /// asks for its count itself (`$count=true`, V2 `$inlinecount=allpages`) is read as it is.
    ///
    /// - Throws: the read's ``ODataError``; ``ODataError/Code/semantic`` when the answer has no count.
    public func count(_ url: String, headers: [HTTPHeader] = []) async throws(ODataError) -> Int {
        let response = try await get(Self.countURL(url), headers: headers)
        return try Self.decoding(Int.self, url: url) { try ODataDecoder().decodeCount(from: response) }
    }

    /// `url` asking for its count: `/$count` added to its path unless there, or asked in its query.
    static func countURL(_ url: String) -> String {
        let path = url.prefix { $0 != "?" }
        let query = url.dropFirst(path.count)
        let asksInQuery = query.contains("$count=true") || query.contains("$inlinecount=allpages")
        var trimmed = path
        while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        if asksInQuery || trimmed.hasSuffix("/$count") || trimmed == "$count" { return url }
        return trimmed + "/$count" + query
    }

    /// Creates an entity in the collection `url` from `value`, encoded in the store's dialect.
    ///
    /// - Throws: ``ODataError/Code/misuse`` when `value` cannot be encoded as a JSON object; the
    ///   create's own errors.
    public func create<T: Encodable>(_ url: String, from value: T, transactionID: String? = nil) async throws(ODataError) -> StoreResponse {
        try await create(url, body: try await encodedBody(value), transactionID: transactionID)
    }

    /// Changes the entity `url` to `value`'s members (`PATCH`, or `MERGE`/`PUT` as ``update(_:body:method:headers:transactionID:)``).
    ///
    /// - Throws: as ``create(_:from:transactionID:)``.
    public func update<T: Encodable>(_ url: String, from value: T, method: String = "PATCH", headers: [HTTPHeader] = [],
                                     transactionID: String? = nil) async throws(ODataError) -> StoreResponse {
        try await update(url, body: try await encodedBody(value), method: method, headers: headers, transactionID: transactionID)
    }

    /// Creates an entity in the collection `url` from its JSON.
    public func create(_ url: String, body: Data, transactionID: String? = nil) async throws(ODataError) -> StoreResponse {
        try await create(url, body: [UInt8](body), transactionID: transactionID)
    }

    /// Changes the entity `url` from its JSON, as ``update(_:body:method:headers:transactionID:)``.
    public func update(_ url: String, body: Data, method: String = "PATCH", headers: [HTTPHeader] = [],
                       transactionID: String? = nil) async throws(ODataError) -> StoreResponse {
        try await update(url, body: [UInt8](body), method: method, headers: headers, transactionID: transactionID)
    }

    /// `value` as a JSON body in the store's dialect: `Date` as V2 `/Date(ms)/` or V4 ISO 8601
    /// (UTC, milliseconds), `Decimal` as a JSON number with its exact digits, `UUID` as a string,
    /// `Data` as base64. A property of type `Edm.Date` or `Edm.TimeOfDay` takes a `String`.
    ///
    /// - Throws: ``ODataError/Code/misuse`` when `value` cannot be encoded, or not as a JSON object.
    public func encodedBody<T: Encodable>(_ value: T) async throws(ODataError) -> [UInt8] {
        let dialect = try await perform(.dialect)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            guard let text = ODataDateText.text(of: date, dialect: dialect) else {
                throw EncodingError.invalidValue(date, EncodingError.Context(
                    codingPath: encoder.codingPath, debugDescription: "OData dates lie between the years 1 and 9999"))
            }
            var container = encoder.singleValueContainer()
            try container.encode(text)
        }
        let body: Data
        do {
            body = try encoder.encode(value)
        } catch {
            throw ODataError(.misuse, "cannot encode \(T.self) as a request body: \(error)")
        }
        guard body.first == UInt8(ascii: "{") else {
            throw ODataError(.misuse, "a request body is a JSON object, and \(T.self) encodes as something else")
        }
        return [UInt8](body)
    }

    /// Runs a decoding step, turning its failure into an ``ODataError`` that names the read and the member.
    static func decoding<T>(_ type: T.Type, url: String, _ decode: () throws -> T) throws(ODataError) -> T {
        do {
            return try decode()
        } catch let error as ODataError {
            throw error
        } catch let error as DecodingError {
            throw ODataError(.semantic, "the answer to '\(url)' does not fit \(T.self): \(DecodingErrorText.describe(error))")
        } catch {
            throw ODataError(.semantic, "the answer to '\(url)' does not fit \(T.self): \(error)")
        }
    }
}

/// Says what a `DecodingError` found, and where, in a line.
enum DecodingErrorText {
    static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return keys.isEmpty ? "the value" : String(keys.drop { $0 == "." })
        }
        switch error {
        case .typeMismatch(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        case .valueNotFound(_, let context):
            return "\(path(context)): no value (\(context.debugDescription))"
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "\(parent == "the value" ? "the entity" : parent) has no member \"\(key.stringValue)\""
        @unknown default:
            return "\(error)"
        }
    }
}
