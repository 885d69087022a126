#if canImport(Glibc)
import Glibc
#endif

/// Copies a store while it is open, its write-ahead log holding the last changes: the files a
/// process killed at that moment leaves (the `-shm` is not copied: nobody has the copy open).
func crashCopy(of path: String, to copy: String) {
    for suffix in ["", "-wal"] {
        guard let bytes = readFile(path + suffix) else { continue }
        let fd = open(copy + suffix, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }
}
