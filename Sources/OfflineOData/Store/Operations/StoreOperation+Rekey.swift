/// Changing the key of an open store (docs/ENCRYPTION.md, "Converting and rekeying").
extension StoreOperation where Output == Void {
    /// Changes the key of the open store's file to `newKey` (nil decrypts it; a plain store is
    /// encrypted with a key): the queue, archive, resume points and indexes come along. On the sync
    /// lane (no download or upload runs meanwhile); the writes and reads running when it starts
    /// end first, those issued meanwhile wait and then run under the new key. A process killed at
    /// any moment leaves a store that opens with exactly one of the two keys. Live queries go on.
    ///
    /// The store's own handle is the only one allowed on the file: another handle or process
    /// that has it open makes the rekey fail with ``ODataError/Code/busy``, the file unchanged.
    ///
    /// - Throws: ``ODataError/Code/misuse`` for a plain store given no key, or a store without a
    ///   file; ``ODataError/Code/storage`` for a read-only file; ``ODataError/Code/busy`` (see above).
    public static func rekey(to newKey: StoreKey?) -> StoreOperation<Void> {
        StoreOperation(lane: .sync) { context throws(ODataError) in
            let offline = try context.dispatcher.requireOffline("changing the store's key")
            try offline.file.rekey(to: newKey)
            context.storeKeyChanged(to: newKey)
        }
    }
}
