/// What an upload does with a change the service refuses because the entity changed there since
/// the store read it (412, 409) or is gone (404 on an update or delete). The app chooses, per
/// store and per entity set (``ConflictPolicies``), or per upload (``UploadOptions/conflictPolicy``).
///
/// Outcomes, per local change and what the service did meanwhile (docs/CONFLICTS.md):
///
/// | | update vs updated | delete vs updated | update vs deleted | delete vs deleted |
/// |---|---|---|---|---|
/// | `archive` | archived (conflict) | archived (conflict) | archived (refused, 404) | archived (refused, 404) |
/// | `serverWins` | dropped, the store takes the service's entity | dropped, the entity comes back | dropped, the entity leaves the store | settled, the entity leaves |
/// | `clientWins` | sent again on the service's ETag | sent again on the service's ETag | archived (not re-created) | settled, the entity leaves |
/// | `mergeChangedFields` | the changed fields sent again when the service changed none of them; archived otherwise | archived | archived | settled, the entity leaves |
///
/// A dropped change is recorded (``ConflictDetail/Outcome/discarded``) until the app clears it.
public enum ConflictPolicy: String, Sendable, CaseIterable {
    /// Today's default: the request goes to the error archive, with the service's entity beside it.
    case archive
    /// The service's entity wins: the local change is dropped (and recorded), the entity re-read.
    case serverWins
    /// The local change wins: it is sent again against the entity's current ETag.
    case clientWins
    /// Only the properties the local change touched are sent again, when the service changed none
    /// of them to another value; otherwise archived.
    case mergeChangedFields

    /// A policy by its name: `archive`, `serverWins`, `clientWins`, `mergeChangedFields`, or the
    /// tool's spelling (`server-wins`, `client-wins`, `merge`).
    public init?(named name: String) {
        switch name {
        case "archive": self = .archive
        case "serverWins", "server-wins": self = .serverWins
        case "clientWins", "client-wins": self = .clientWins
        case "mergeChangedFields", "merge": self = .mergeChangedFields
        default: return nil
        }
    }

    /// The names ``init(named:)`` takes, for error messages.
    static let spelledNames = "archive, serverWins (server-wins), clientWins (client-wins), mergeChangedFields (merge)"

    /// `name` as a policy, or a ``ODataError/Code/misuse`` naming the ones there are.
    static func parse(_ name: String) throws(ODataError) -> ConflictPolicy {
        guard let policy = ConflictPolicy(named: name) else {
            throw ODataError(.misuse, "unknown conflict policy '\(name)': one of \(spelledNames)")
        }
        return policy
    }
}
