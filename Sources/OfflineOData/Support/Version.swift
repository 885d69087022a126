/// The engine's version. `include/offline_odata.h` carries the same numbers as
/// `OOD_VERSION_MAJOR/MINOR/PATCH`; a test checks that they agree.
public enum OfflineODataVersion {
    public static let major = 0
    public static let minor = 1
    public static let patch = 0
    /// `"MAJOR.MINOR.PATCH"`.
    public static var string: String { "\(major).\(minor).\(patch)" }
    /// `MAJOR * 1_000_000 + MINOR * 1_000 + PATCH`, as `SQLITE_VERSION_NUMBER` does.
    public static var number: Int { major * 1_000_000 + minor * 1_000 + patch }
}
