import FoundationEssentials
import OfflineOData

/// The answer shapes around entities: a collection is V4 `{"value": [...]}` or V2
/// `{"d": {"results": [...]}}` (older V2: `{"d": [...]}`); one entity is the object itself (V4) or
/// `{"d": {...}}` (V2); a count is `/$count`'s text, or a collection's `@odata.count` / `__count`.
///
/// Related OData documentation: <https://docs.oasis-open.org/odata/odata-json-format/v4.01/odata-json-format-v4.01.html#sec_CollectionofEntities>.
extension ODataDecoder {
    /// The entities of a collection answer, each decoded as a `T`.
    ///
    /// - Throws: ``OfflineOData/ODataError`` (`syntax`) for a body that is not JSON, `semantic`
    ///   for one that is no collection; `DecodingError` for an entity that does not fit `T`.
    public func decodeEntities<T: Decodable>(_ type: T.Type, from response: StoreResponse) throws -> [T] {
        let answer = try JSONValue.parse(response.body)
        guard let elements = Self.collection(in: answer) else {
            throw ODataError(.semantic, "the answer is not a collection (no \"value\" or \"d.results\" array): "
                             + JSONValueDecoder.describe(answer))
        }
        return try decode([T].self, from: .array(elements))
    }

    /// The one entity of an entity answer, decoded as a `T`.
    ///
    /// - Throws: as ``decodeEntities(_:from:)``, `semantic` for a collection or a value that is no object.
    public func decodeEntity<T: Decodable>(_ type: T.Type, from response: StoreResponse) throws -> T {
        let answer = try JSONValue.parse(response.body)
        if Self.collection(in: answer) != nil {
            throw ODataError(.semantic, "the answer is a collection, not one entity: read it with decodeEntities, or address one entity by its key")
        }
        var entity = answer
        if let members = answer.objectMembers, members.count == 1, members[0].key == "d" { entity = members[0].value }
        guard entity.objectMembers != nil else {
            throw ODataError(.semantic, "the answer is not an entity: " + JSONValueDecoder.describe(entity))
        }
        return try decode(T.self, from: entity)
    }

    /// The count an answer carries: a `/$count` answer's number, or the `@odata.count` (V4) or
    /// `__count` (V2) of a collection read with `$count=true` / `$inlinecount=allpages`.
    ///
    /// - Throws: ``OfflineOData/ODataError`` (`semantic`) when the answer has no count.
    public func decodeCount(from response: StoreResponse) throws -> Int {
        let text = String(response.text.filter { !$0.isWhitespace })
        if let count = Int(text) { return count }
        let answer = try JSONValue.parse(response.body)
        let count = answer["@odata.count"] ?? answer["d"]?["__count"] ?? answer["__count"]
        if let count, let number = count.int64Value ?? count.stringValue.flatMap({ Int64($0) }), let value = Int(exactly: number) {
            return value
        }
        throw ODataError(.semantic, "the answer has no count: read \"…/$count\", or the collection with $count=true (V4) "
                         + "or $inlinecount=allpages (V2)")
    }

    /// The entities of a collection answer, or nil when `answer` is none.
    static func collection(in answer: JSONValue) -> [JSONValue]? {
        if let elements = answer["value"]?.arrayValue { return elements }
        guard let d = answer["d"] else { return nil }
        return d.arrayValue ?? d["results"]?.arrayValue
    }
}
