/// A queued request as it goes into a `$batch`: its Content-ID and the URL it is sent with.
struct PlannedRequest: Equatable {
    var request: QueuedRequest
    /// Unique within the batch: `1`, `2`, ... in queue order.
    var contentID: String
    /// The queued URL, or `$<n>` when it addresses an entity created by request `n` of the same change set.
    var url: String
    /// The `If-Match` it is sent with: the queued ETag, or `*` for an entity created earlier in
    /// the same change set (its ETag is not known yet, and nobody else can have changed it).
    var ifMatch: String?
}

/// Groups a chunk of the queue into change sets.
///
/// Each request is its own change set by default, so one refusal does not roll back unrelated
/// changes. Requests on the same entity share a change set: a later one builds on the earlier
/// (a PATCH of an entity created offline needs its POST, a refused PATCH must not be followed by
/// the next one), which the single-request upload gets by archiving followers. With
/// `groupByTransaction`, requests with the same transaction id share one too. Change sets keep
/// the queue order of their first request, and requests keep queue order within a change set.
enum ChangeSetPlan {
    static func plan(_ requests: [QueuedRequest], groupByTransaction: Bool,
                     contentIDReferences: Bool) -> [[PlannedRequest]] {
        var parent = Array(requests.indices)
        func root(_ index: Int) -> Int {
            var index = index
            while parent[index] != index {
                parent[index] = parent[parent[index]]
                index = parent[index]
            }
            return index
        }
        func join(_ a: Int, _ b: Int) {
            let (ra, rb) = (root(a), root(b))
            if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
        }
        var byEntity: [String: Int] = [:]
        var byTransaction: [String: Int] = [:]
        for (index, request) in requests.enumerated() {
            if let set = request.entitySet, let id = request.entityID {
                let key = "\(set)\u{0}\(id)"
                if let first = byEntity[key] { join(first, index) } else { byEntity[key] = index }
            }
            if groupByTransaction, let transaction = request.transactionID, !transaction.isEmpty {
                if let first = byTransaction[transaction] { join(first, index) } else { byTransaction[transaction] = index }
            }
        }
        var groups: [Int: [PlannedRequest]] = [:]
        var order: [Int] = []
        var createdBy: [String: String] = [:]
        for (index, request) in requests.enumerated() {
            let group = root(index)
            if groups[group] == nil { order.append(group) }
            let contentID = String(index + 1)
            var url = request.url
            var ifMatch = request.method == .post ? nil : request.etag
            if let set = request.entitySet, let id = request.entityID {
                let key = "\(set)\u{0}\(id)"
                if request.method == .post {
                    createdBy[key] = contentID
                } else if let creator = createdBy[key] {
                    if contentIDReferences { url = "$" + creator + query(of: request.url) }
                    if ifMatch == nil { ifMatch = "*" }
                }
            }
            groups[group, default: []].append(PlannedRequest(request: request, contentID: contentID, url: url, ifMatch: ifMatch))
        }
        return order.compactMap { groups[$0] }
    }

    /// `?...` of a URL, or nothing.
    private static func query(of url: String) -> String {
        guard let mark = url.firstIndex(of: "?") else { return "" }
        return String(url[mark...])
    }
}
