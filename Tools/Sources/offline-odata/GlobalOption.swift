@_spi(Tool) import OfflineOData

/// The options every subcommand takes (``ToolKey``'s `--key-file` and `--passphrase-env`,
/// ``ToolStoreUser``'s `--store-user`): taken out of the arguments before the subcommand parses
/// them, so that no subcommand has to declare them.
enum GlobalOption {
    /// Removes `--name value` or `--name=value`, for each of `names`, from `arguments` (up to a
    /// `--`, after which everything is the subcommand's), and returns the one given.
    /// - Throws: ``ODataError/Code/misuse`` with `tooMany` when more than one is given.
    static func extract(_ names: [String], from arguments: inout [String],
                        tooMany: String) throws(ODataError) -> (name: String, value: String)? {
        var found: (name: String, value: String)?
        var kept: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--" {
                kept += arguments[index...]
                break
            }
            if let (name, value, used) = option(arguments, at: index, names: names) {
                guard found == nil else { throw ODataError(.misuse, tooMany) }
                found = (name, value)
                index += used
                continue
            }
            kept.append(argument)
            index += 1
        }
        arguments = kept
        return found
    }

    /// `--name value` or `--name=value` at `index`: the name, the value, and how many arguments it took.
    private static func option(_ arguments: [String], at index: Int, names: [String]) -> (String, String, Int)? {
        let argument = arguments[index]
        for name in names {
            if argument == name, index + 1 < arguments.count { return (name, arguments[index + 1], 2) }
            if argument.hasPrefix(name + "=") { return (name, String(argument.dropFirst(name.count + 1)), 1) }
        }
        return nil
    }
}
