/// One way a service's current `$metadata` differs from the one a store was built from, with what
/// it means for the store (``Impact``).
///
/// ``ModelComparison`` gives each difference the impact the two models alone decide; the store
/// raises it to ``Impact/breaksPendingChanges`` when a queued request depends on it
/// (`ServiceModelCheck`), since only the queue says whether a removed property is still needed.
public struct ModelDifference: Sendable, Hashable, CustomStringConvertible {
    /// What changed.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case entitySetAdded, entitySetRemoved, entitySetTypeChanged
        case entityTypeAdded, entityTypeRemoved, complexTypeAdded, complexTypeRemoved, enumTypeAdded, enumTypeRemoved
        case baseTypeChanged
        case propertyAdded, propertyRemoved, propertyTypeChanged
        case propertyMadeMandatory, propertyMadeNullable
        case maxLengthChanged, precisionChanged, scaleChanged
        case keyChanged
        case navigationAdded, navigationRemoved, navigationChanged
        /// The entity set's changes now (or no longer) need an ETag (`If-Match`).
        case concurrencyChanged
        /// The entity set now (or no longer) takes repeatable requests.
        case repeatabilityChanged
        case functionImportAdded, functionImportRemoved, functionImportChanged
        /// A V4 function or action declared in a schema (bound operations among them).
        case operationAdded, operationRemoved, operationChanged
    }

    /// What a difference asks of the store.
    public enum Impact: String, Sendable, Hashable, Comparable, CaseIterable {
        /// Applied in place (new columns or tables), queue untouched; the next download fills them.
        case compatible
        /// The store's data no longer fits the new model (a removed set or property, a new
        /// mandatory property, a changed type or key): a full download under the new model
        /// rebuilds it. The store stays on its model until the app chooses.
        case needsData
        /// A queued request depends on what changed: the new model would refuse it.
        case breaksPendingChanges

        private var rank: Int {
            switch self {
            case .compatible: 0
            case .needsData: 1
            case .breaksPendingChanges: 2
            }
        }

        public static func < (lhs: Impact, rhs: Impact) -> Bool { lhs.rank < rhs.rank }
    }

    public var kind: Kind
    /// The entity set concerned (set differences, concurrency, repeatability), if any.
    public var entitySet: String?
    /// The qualified name of the type concerned (type, property, key and navigation differences).
    public var type: String?
    /// The property, navigation property, function import or operation concerned.
    public var member: String?
    /// The old and new values, as text (`Edm.Int32`, `40`, `nullable`), where a value changed.
    public var old: String?
    public var new: String?
    public var impact: Impact
    /// The queued requests (their ids) the new model would refuse because of this difference.
    public var queuedRequests: [Int64] = []

    public init(kind: Kind, entitySet: String? = nil, type: String? = nil, member: String? = nil,
                old: String? = nil, new: String? = nil, impact: Impact) {
        self.kind = kind
        self.entitySet = entitySet
        self.type = type
        self.member = member
        self.old = old
        self.new = new
        self.impact = impact
    }

    /// What the difference is about, as one path: `Orders`, `NS.Order/Price`, `NS.Order`.
    public var subject: String {
        if let type { return member.map { type + "/" + $0 } ?? type }
        if let entitySet { return member.map { entitySet + "/" + $0 } ?? entitySet }
        return member ?? ""
    }

    public var description: String {
        var text = "\(kind.rawValue) \(subject)"
        if old != nil || new != nil { text += " (\(old ?? "-") -> \(new ?? "-"))" }
        return text + ": \(impact.rawValue)"
    }
}
