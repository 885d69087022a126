#if canImport(Glibc)
import Glibc
#endif

/// Named moments of a rekey where a kill -9 campaign stops the process, so its kills land on both
/// sides of the rename by construction rather than by timing (Tests/tool/test_encryption.py).
///
/// With `OOD_TEST_STOP_AT` naming a point, the process sends itself SIGSTOP when it reaches it; the
/// test waits for the stop (`waitpid` with `WUNTRACED`) and kills it there. Without the variable
/// (every ordinary run) a point is one `getenv`; a rekey passes four of them.
enum TestStopPoint: String {
    /// The copy under the new key is written, synced and checked; the old file is still open.
    case rekeyCopied = "rekey-copied"
    /// The old file's WAL is folded in and the file held alone; the copy is not yet renamed over it.
    case rekeyFolded = "rekey-folded"
    /// The copy has been renamed over the store; its folder is not yet synced.
    case rekeyRenamed = "rekey-renamed"

    /// Stops the process here when `OOD_TEST_STOP_AT` names this point.
    func reached() {
        guard let named = getenv("OOD_TEST_STOP_AT"), String(cString: named) == rawValue else { return }
        _ = raise(SIGSTOP)
    }
}
