/// What a store file holds, for the command-line tool's `store create` and `store info`.
@_spi(Tool) public struct StoreDescription: Sendable {
    public var formatVersion: Int
    public var dialect: Dialect
    /// The namespaces of the service model.
    public var namespaces: [String]
    /// The service root the file keeps (not one given for this session only).
    public var serviceRoot: String?
    /// The entity sets the file has tables for, in the schema's order.
    public var entitySets: [String]
    public var definingRequests: [DefiningRequest]
    /// How the file is encrypted; nil for a plain file.
    public var encryption: StoreEncryption? = nil
}
