#if canImport(Glibc)
import Glibc
#endif

/// Starts `arguments[0]` with `arguments`, in a process group of its own (so a test can end it
/// and what it started) and with no signal blocked (the test runner's mask is not inherited).
/// `actions` may redirect its standard streams. Returns its pid, or the `posix_spawn` error.
func spawnProcess(_ arguments: [String], actions: UnsafePointer<posix_spawn_file_actions_t>? = nil) -> (pid: pid_t, error: Int32) {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var noSignals = sigset_t()
    sigemptyset(&noSignals)
    posix_spawnattr_setsigmask(&attributes, &noSignals)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP))
    var pid: pid_t = 0
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    let rc = posix_spawn(&pid, arguments.first ?? "", actions, &attributes, argv, environ)
    return (pid, rc)
}
