/// Operations only the command-line tool needs: what the file holds, and pages loaded from files.
@_spi(Tool) extension StoreOperation where Output == StoreDescription {
    /// The store file's format, model, kept service root and defining requests.
    @_spi(Tool) public static var describe: StoreOperation<StoreDescription> {
        StoreOperation(lane: .read) { context throws(ODataError) in
            let offline = try context.dispatcher.requireOffline("a store's description")
            return StoreDescription(formatVersion: try offline.file.formatVersion(), dialect: offline.dialect,
                                    namespaces: offline.model.namespaces, serviceRoot: try offline.serviceRoot(),
                                    entitySets: offline.schema.tables.map(\.entitySet),
                                    definingRequests: try offline.definingRequests(),
                                    encryption: offline.file.isEncrypted ? StoreEncryption.of(path: offline.file.path) : nil)
        }
    }
}

extension StoreOperation where Output == Int {
    /// Loads pages of an OData JSON response as the result of the defining request `name`, in one
    /// transaction (see ``LocalStore/load(definingRequest:fullRefresh:nextPage:)``); `nextPage`
    /// gives one page at a time and nil after the last. Gives the number of entities loaded.
    @_spi(Tool) public static func load(definingRequest name: String, fullRefresh: Bool = false,
                                        nextPage: @escaping @Sendable () throws(ODataError) -> [UInt8]?) -> StoreOperation<Int> {
        StoreOperation(lane: .write) { context throws(ODataError) in
            let offline = try context.dispatcher.requireOffline("loading pages")
            let entities = try offline.load(definingRequest: name, fullRefresh: fullRefresh, nextPage: nextPage)
            context.announceChanges(context.dispatcher.entitySets(ofDefiningRequest: name))
            return entities
        }
    }
}

@_spi(Tool) extension StoreOperation where Output == [KeptDownload] {
    /// The interrupted downloads whose pages are kept for resuming, by defining request name.
    @_spi(Tool) public static var keptDownloads: StoreOperation<[KeptDownload]> {
        StoreOperation(lane: .read) { context throws(ODataError) in
            try context.dispatcher.requireOffline("the kept pages of interrupted downloads").file.keptDownloads()
        }
    }
}
