/// The `ood_membership` table: which defining request holds which entity.
///
/// Since format 5 its one B-tree is keyed by defining request first, then entity set and local
/// id: a download appends its memberships to that one tree and finds them by request, with no
/// second index to keep (writing that index was a fifth of a download's SQLite work). Asking
/// whether any request holds an entity then looks it up under each request that holds anything:
/// a seek per request, and stores have few requests.
enum MembershipTable {
    /// The defining requests that hold any entity, found by a skip along the key (one seek each,
    /// where `SELECT DISTINCT` would read every membership): a subquery for `IN (...)`.
    static let holdingRequests = """
        WITH RECURSIVE ood_holder(name) AS (
            SELECT min(defining_request) FROM ood_membership
            UNION ALL
            SELECT (SELECT min(defining_request) FROM ood_membership WHERE defining_request > ood_holder.name)
            FROM ood_holder WHERE ood_holder.name IS NOT NULL
        )
        SELECT name FROM ood_holder
        """

    /// The condition that some defining request holds the entity whose set and local id are the
    /// parameters `entitySet` and `entityID` (placeholders such as `?2`, never values).
    static func isHeld(entitySet: String, entityID: String) -> String {
        """
        EXISTS (SELECT 1 FROM ood_membership WHERE defining_request IN (\(holdingRequests))
                AND entity_set = \(entitySet) AND entity_id = \(entityID))
        """
    }
}
