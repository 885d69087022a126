@_spi(Tool) import OfflineOData

/// `--store-user NAME`: the user a store is opened for, for every command that opens one
/// (docs/SHARED-DEVICE.md). A store bound to another user, or to one while no `--store-user` is
/// given, is refused (`OOD_OTHER_USER`); `store hand-over` gives it to another user. Not `--user`,
/// which names the service's basic-authentication user.
///
/// Taken out of the arguments before the subcommand parses them (``GlobalOption``).
enum ToolStoreUser {
    /// The user the command line named, if any.
    nonisolated(unsafe) static var current: String?

    static let help = """
        Shared devices (docs/SHARED-DEVICE.md), for every command: --store-user NAME opens a \
        store for that user (a store bound to another is refused); `store hand-over` gives a \
        store to the next user.
        """

    /// Removes `--store-user NAME` (or `--store-user=NAME`) from `arguments`, returning the name.
    static func extract(from arguments: inout [String]) throws(ODataError) -> String? {
        try GlobalOption.extract(["--store-user"], from: &arguments, tooMany: "give one --store-user, not more")?.value
    }
}
