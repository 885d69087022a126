/// What compacting the request queue does, worked out in memory: a pure function of the queued
/// rows, so that an upload preview can show it without changing the store
/// (``QueueCompactor`` applies it durably).
///
/// The service ends with the same data as after uploading the queue as it was:
/// - a create followed by updates (PATCH, MERGE) of its entity becomes one create with the final values;
/// - consecutive PATCH/MERGE of one entity (or a PUT and the PATCH/MERGE after it) become the first
///   one with the later values winning property by property;
/// - updates followed by a delete of their entity become the delete;
/// - a create followed by a delete of its entity disappears with everything in between.
///
/// Two requests of one entity are joined only when nothing could tell them apart: both are
/// pending and never sent (nothing the in-doubt reconciliation relies on), the app did not mark
/// either as not to be merged, both carry the same ETag, their bodies are flat JSON objects of
/// property values (no links, no deep insert, no nested value), both belong to the same
/// transaction (or both to none: a transaction is applied or refused whole, so no request leaves
/// or joins one), and no request queued between them names the entity (its key values or its
/// address: it may depend on it; other requests, transactions included, neither see nor change it).
///
/// ```swift
/// let compaction = QueueCompaction.compact(queue, keyProperties: ["TravelagencyCollection": ["agencynum"]])
/// print(queue.count, "->", compaction.queue.count)
/// ```
public struct QueueCompaction: Sendable, Equatable {
    /// One entity of the store: its entity set and its local id (``QueuedRequest/entityID``).
    public struct Entity: Sendable, Hashable {
        public var entitySet: String
        public var entityID: Int64
    }

    /// The queue after compaction, in upload order; a request that took later ones' values has
    /// its new ``QueuedRequest/body``.
    public var queue: [QueuedRequest]
    /// The id of each request that replaces others → the ids it replaces (merged into it, or
    /// updates made pointless by it as a delete), in queue order.
    public var replaced: [Int64: [Int64]]
    /// Every id that leaves the queue, in queue order: the replaced ones and the cancelled ones.
    public var dropped: [Int64]
    /// Entities created and deleted in the queue: none of their requests is sent, and the store
    /// forgets them.
    public var cancelled: [Entity]

    /// Compacts `queue` (in upload order, as ``RequestQueueTable`` reads it).
    ///
    /// - Parameter keyProperties: the key property names of each entity set, to recognise the
    ///   key values a create gives (another request naming them may depend on the entity); an
    ///   entity set missing here is recognised by its address alone.
    public static func compact(_ queue: [QueuedRequest], keyProperties: [String: [String]]) -> QueueCompaction {
        let references = QueueReferences(queue, keyProperties: keyProperties)
        var chains: [Entity: [Int]] = [:]
        for (position, request) in queue.enumerated() {
            guard let entity = entity(of: request) else { continue }
            chains[entity, default: []].append(position)
        }
        var bodies: [Int: String] = [:]
        var replacedBy: [Int: [Int]] = [:]
        var droppedPositions: Set<Int> = []
        var cancelled: [(first: Int, entity: Entity)] = []
        for (entity, chain) in chains where chain.count > 1 {
            for segment in segments(of: chain, in: queue, entity: entity, references: references) where segment.count > 1 {
                let first = segment[0], last = segment[segment.count - 1]
                if queue[last].method == .delete {
                    if queue[first].method == .post {
                        droppedPositions.formUnion(segment)
                        cancelled.append((first, entity))
                    } else {
                        droppedPositions.formUnion(segment.dropLast())
                        replacedBy[last] = Array(segment.dropLast())
                    }
                } else if let merged = MergedBody.merge(segment.map { queue[$0].body },
                                                        keepingFirst: queue[first].method == .post ? keyProperties[entity.entitySet] ?? [] : []) {
                    bodies[first] = merged
                    droppedPositions.formUnion(segment.dropFirst())
                    replacedBy[first] = Array(segment.dropFirst())
                }
            }
        }
        var result = QueueCompaction(queue: [], replaced: [:], dropped: [], cancelled: cancelled.sorted { $0.first < $1.first }.map(\.entity))
        for (position, request) in queue.enumerated() {
            if droppedPositions.contains(position) {
                result.dropped.append(request.id)
                continue
            }
            var kept = request
            if let body = bodies[position] { kept.body = body }
            result.queue.append(kept)
            if let positions = replacedBy[position] { result.replaced[request.id] = positions.map { queue[$0].id } }
        }
        return result
    }

    private static func transaction(of request: QueuedRequest) -> String? {
        request.transactionID.flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func entity(of request: QueuedRequest) -> Entity? {
        guard let set = request.entitySet, let id = request.entityID else { return nil }
        return Entity(entitySet: set, entityID: id)
    }

    /// The chain of one entity's requests cut where two neighbours must not be joined: each
    /// segment is a run that may become one request (or none).
    private static func segments(of chain: [Int], in queue: [QueuedRequest], entity: Entity,
                                 references: QueueReferences) -> [[Int]] {
        var segments: [[Int]] = []
        var current: [Int] = []
        for position in chain {
            if let previous = current.last, let start = current.first,
               !joins(previous, position, in: queue, entity: entity, references: references)
                || (queue[start].method == .post && queue[position].body.map(MergedBody.hasNull) == true) {
                // A create given a null is not an update to null on every service (SAP Gateway
                // stores an empty string for it): a create takes no update that sets a null.
                segments.append(current)
                current = []
            }
            current.append(position)
        }
        segments.append(current)
        return segments
    }

    /// Whether `later` can be folded into the run that ends with `earlier` (the entity's requests
    /// at these queue positions, with none of its requests between them).
    private static func joins(_ earlier: Int, _ later: Int, in queue: [QueuedRequest], entity: Entity,
                              references: QueueReferences) -> Bool {
        let (a, b) = (queue[earlier], queue[later])
        guard mayTakePart(a), mayTakePart(b), a.etag == b.etag, a.method != .delete else { return false }
        switch b.method {
        case .patch, .merge, .delete: break
        case .put: return false   // a PUT replaces the whole entity: it starts a run of its own
        case .get, .post: return false
        }
        return transaction(of: a) == transaction(of: b)
            && !references.isNamed(entity, between: earlier, and: later)
    }

    /// A request the compaction may join with others: pending, never sent, not marked by the app,
    /// without extra headers, and (unless a delete) with a flat JSON object as its body.
    private static func mayTakePart(_ request: QueuedRequest) -> Bool {
        guard request.state == .pending, request.firstSent == nil, request.mergeable,
              request.headers?.isEmpty ?? true else { return false }
        switch request.method {
        case .delete: return true
        case .post, .patch, .merge, .put: return request.body.map(MergedBody.isFlatObject) ?? false
        case .get: return false
        }
    }
}
