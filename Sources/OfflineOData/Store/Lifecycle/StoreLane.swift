/// Which of an ``ODataStore``'s threads run a job.
enum StoreLane: Sendable {
    /// Local and online reads, and questions (route, explain, status): several threads.
    case read
    /// Writes, one at a time, in the order issued.
    case write
    /// Writes the offline store applies: on the write lane too, and those queued one after the
    /// other are committed together (group commit, see ``ODataStore/LocalWriteGroup``).
    case localWrite
    /// Opening, downloads and uploads, one at a time.
    case sync
}
