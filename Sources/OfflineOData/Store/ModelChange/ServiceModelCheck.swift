/// What checking the service's `$metadata` against the store's found (``StoreOperation/checkService``,
/// and every download): whether it changed, how the store knew, and the differences, each
/// classified against the queue as it is now.
public struct ServiceModelCheck: Sendable, Equatable {
    /// How the store learnt whether the document changed.
    public enum Evidence: String, Sendable, Equatable {
        /// The service answered 304 to `If-None-Match` / `If-Modified-Since`: one request, no body.
        case notModified
        /// The document came whole and its hash is the one seen last.
        case sameHash
        /// The document came whole and was read and compared with the store's model.
        case compared
    }

    /// Whether the service's model differs from the store's (differences found, or not adopted yet).
    public var changed: Bool { !differences.isEmpty }
    public var evidence: Evidence
    /// Every difference, in ``ModelComparison``'s order, with its impact raised to
    /// ``ModelDifference/Impact/breaksPendingChanges`` where a queued request depends on it.
    public var differences: [ModelDifference]
    /// The queued requests (ids) the service's model would refuse, in queue order.
    public var refusedRequests: [Int64]
    /// Whether this check (a download's) applied the differences to the store in place: all were
    /// compatible, so the store now has the service's model.
    public var migrated: Bool = false

    /// The most serious impact, nil when nothing changed.
    public var impact: ModelDifference.Impact? { differences.map(\.impact).max() }

    /// Whether every difference is compatible: a download applies them in place by itself.
    public var isCompatible: Bool { differences.allSatisfy { $0.impact == .compatible } }

    public init(evidence: Evidence, differences: [ModelDifference], refusedRequests: [Int64], migrated: Bool = false) {
        self.evidence = evidence
        self.differences = differences
        self.refusedRequests = refusedRequests
        self.migrated = migrated
    }

    /// As JSON for the C, Python and tool surfaces:
    /// `{"changed":B,"evidence":"notModified|sameHash|compared","impact":"compatible|needsData|breaksPendingChanges"|null,
    /// "migrated":B,"refusedRequests":[ids],"differences":[{"kind","entitySet","type","member","old","new","impact","queuedRequests":[ids]}]}`
    /// (absent members of a difference are null).
    public var jsonText: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.writeKey("changed"); writer.writeBool(changed)
        writer.writeKey("evidence"); writer.writeString(evidence.rawValue)
        writer.writeKey("impact")
        if let impact { writer.writeString(impact.rawValue) } else { writer.writeNull() }
        writer.writeKey("migrated"); writer.writeBool(migrated)
        writer.writeKey("refusedRequests"); writer.beginArray()
        for id in refusedRequests { writer.writeNumber(id) }
        writer.endArray()
        writer.writeKey("differences"); writer.beginArray()
        for difference in differences {
            writer.beginObject()
            writer.writeKey("kind"); writer.writeString(difference.kind.rawValue)
            for (key, value) in [("entitySet", difference.entitySet), ("type", difference.type), ("member", difference.member),
                                 ("old", difference.old), ("new", difference.new)] {
                writer.writeKey(key)
                if let value { writer.writeString(value) } else { writer.writeNull() }
            }
            writer.writeKey("impact"); writer.writeString(difference.impact.rawValue)
            writer.writeKey("queuedRequests"); writer.beginArray()
            for id in difference.queuedRequests { writer.writeNumber(id) }
            writer.endArray()
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
