/// The three versions of an entity in conflict, handed to the app's ``ConflictResolver``.
public struct ConflictVersions: Sendable {
    public var entitySet: String
    /// The request's URL, relative to the service root.
    public var url: String
    public var method: RequestMethod
    /// The service's answer: 409, 412, or 404 (the entity is gone).
    public var httpStatus: Int
    /// The values the local change was made on (an object; empty for an entity created offline).
    public var original: JSONValue
    /// The local change: the queued request's body (null for a delete).
    public var local: JSONValue
    /// The service's entity now; null when it is gone.
    public var served: JSONValue
    /// Per property, who changed what.
    public var properties: [PropertyChange]
    /// What the store's policy for the set would do.
    public var policy: ConflictPolicy
}

/// What the app's resolver answers for one conflict.
public enum ConflictDecision: Sendable, Equatable {
    /// Do what the policy does.
    case policy(ConflictPolicy)
    /// Send this body (an update of the properties it holds) against the service's current ETag;
    /// the store takes the service's entity with this body over it.
    case merged(JSONValue)
}

/// One upload's conflict choices: a policy for every entity set (nil follows the store's), and
/// the app's resolver, which decides over the policy.
package struct UploadConflicts {
    package var policy: ConflictPolicy?
    package var resolver: ConflictResolver?

    package init(policy: ConflictPolicy? = nil, resolver: ConflictResolver? = nil) {
        self.policy = policy
        self.resolver = resolver
    }
}

/// Decides each conflict of an upload (Swift closure; C `ood_conflict_resolver`; Python callable).
/// Called on the upload's thread with no transaction open, once per conflict met.
public typealias ConflictResolver = @Sendable (ConflictVersions) -> ConflictDecision
