extension SQLiteConnection {
    /// Runs `body` with the connection's page cache set to `kibibytes`, then puts back the size it
    /// had (also when `body` throws). A bulk write that commits as it goes, or a sort, needs less
    /// than the 16 MB a connection keeps for reads: the smaller cache bounds its memory.
    func withPageCache<T>(kibibytes: Int, _ body: () throws(ODataError) -> T) throws(ODataError) -> T {
        let cacheSize = try scalarInt("PRAGMA cache_size") ?? -2000
        try execute("PRAGMA cache_size = -\(kibibytes)")
        let result: T
        do {
            result = try body()
        } catch {
            try? execute("PRAGMA cache_size = \(cacheSize)")
            throw error
        }
        try execute("PRAGMA cache_size = \(cacheSize)")
        return result
    }
}
