extension ODataStore {
    /// Changes the key of the closed store file at `path`: from `oldKey` to `newKey`, either nil
    /// for a plain file (so this also encrypts and decrypts). The store must be closed everywhere:
    /// the file is replaced. A process killed during a rekey leaves a store that opens with exactly
    /// one of the two keys. See docs/ENCRYPTION.md.
    ///
    /// - Throws: ``ODataError/Code/key`` when `oldKey` does not open the store (nothing changes),
    ///   ``ODataError/Code/busy`` when the store is open elsewhere.
    public static func rekey(path: String, from oldKey: StoreKey?, to newKey: StoreKey?) throws(ODataError) {
        try StoreRekey.rekey(path: path, from: oldKey, to: newKey)
    }
}
