#if canImport(Glibc)
import Glibc
#endif

/// Whether anything exists at `path`.
func fileExists(_ path: String) -> Bool {
    access(path, F_OK) == 0
}
