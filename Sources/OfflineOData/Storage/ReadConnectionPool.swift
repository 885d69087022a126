/// Connections for reads, one per concurrent reader, beside a store's single write connection.
///
/// SQLite in WAL mode lets readers run while a writer holds its transaction, each reader seeing
/// the last committed state. A store file therefore keeps one write connection (serialized by
/// its lock) and hands each read a connection of its own from this pool; a read runs inside one
/// read transaction, so all its statements (the main one, `$expand` batches, `$count`) see the
/// same snapshot: before or after a download's transaction, never half of it.
///
/// A pooled connection carries an `attachment`: the layer above keeps its per-connection state
/// there (prepared statements belong to one connection). The pool grows to as many connections
/// as reads have run at once and keeps them until the store closes.
final class ReadConnectionPool: @unchecked Sendable {
    /// A read connection with the state the reading layer keeps for it.
    final class Slot {
        let connection: SQLiteConnection
        /// Per-connection state of the layer above (its statement cache), made on first use.
        var attachment: AnyObject?
        /// The pool's generation when the slot was made; a slot of an older one is dropped.
        let generation: Int

        init(connection: SQLiteConnection, generation: Int) {
            self.connection = connection
            self.generation = generation
        }
    }

    private let path: String
    /// How the pool's connections open the file (``SQLiteConnection/Access/immutable`` for a
    /// read-only store in a write-protected folder).
    private let access: SQLiteConnection.Access
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var idle: [Slot] = []
    private var isClosed = false
    private var generation = 0
    /// Slots checked out now, and whether new reads wait (``pause()``): guarded by `lock`.
    private var inUse = 0
    private var isPaused = false

    /// The key of an encrypted store, for every connection of the pool (guarded by `lock`:
    /// replaced by a rekey of the open store, ``resume(cipher:)``).
    private var cipher: CipherKeyHandle?

    init(path: String, access: SQLiteConnection.Access = .readWrite, cipher: CipherKeyHandle? = nil) {
        self.path = path
        self.access = access
        self.cipher = cipher
    }

    /// Runs `body` with a read connection inside one read transaction. Without `snapshot`, `body`
    /// runs one statement, which is its own read transaction (SQLite's autocommit: from its first
    /// step to its reset), so the `BEGIN` and `COMMIT` around it are left out, a sixth of a one-row
    /// read's instructions.
    ///
    /// - Throws: ``ODataError/Code/misuse`` once the pool is closed, and what `body` throws.
    func withSlot<T>(snapshot: Bool = true, _ body: (Slot) throws(ODataError) -> T) throws(ODataError) -> T {
        let slot = try checkOut()
        defer { checkIn(slot) }
        guard snapshot else { return try body(slot) }
        try slot.connection.runCached("BEGIN DEFERRED")
        do {
            let result = try body(slot)
            try slot.connection.runCached("COMMIT")
            return result
        } catch {
            try? slot.connection.execute("ROLLBACK")
            throw error
        }
    }

    /// Forgets every slot's attachment (made for a service root that changed, say): idle slots
    /// are dropped now, slots in use when they come back.
    func invalidateAttachments() {
        lock.withLock {
            generation += 1
            idle.removeAll()
        }
    }

    /// Closes the idle connections now and the others when their reads end.
    func close() {
        let closing: [Slot] = lock.withLock {
            isClosed = true
            lock.broadcast()
            defer { idle.removeAll() }
            return idle
        }
        for slot in closing { slot.connection.close() }
    }

    /// Lets the reads running now end, keeps new ones waiting, and closes every connection: the
    /// file is then free of this pool (a rekey of the open store replaces it). ``resume(cipher:)``
    /// lets the waiting reads go on with new connections.
    func pause() {
        let closing: [Slot] = lock.withLock {
            isPaused = true
            while inUse > 0 { lock.wait() }
            generation += 1
            defer { idle.removeAll() }
            return idle
        }
        for slot in closing { slot.connection.close() }
    }

    /// Ends a ``pause()``: connections open from now on through `cipher` (the file's key now).
    func resume(cipher newCipher: CipherKeyHandle?) {
        lock.withLock {
            cipher = newCipher
            isPaused = false
            lock.broadcast()
        }
    }

    private func checkOut() throws(ODataError) -> Slot {
        let (reused, currentGeneration, currentCipher) = try lock.withLock { () throws(ODataError) -> (Slot?, Int, CipherKeyHandle?) in
            while isPaused && !isClosed { lock.wait() }
            guard !isClosed else { throw ODataError(.misuse, "the store is closed") }
            inUse += 1
            return (idle.popLast(), generation, cipher)
        }
        if let reused { return reused }
        do throws(ODataError) {
            // Opening outside the lock: it touches the file and should not hold other readers up.
            let connection = try SQLiteConnection(path: path, access: access, cipher: currentCipher)
            // Readers never write; `query_only` makes that a guarantee, not a convention. The
            // write connection's 16 MB page cache (StoreFile) for readers too: with SQLite's
            // default 2 MB, a page of a navigation filter at 1,000,000 entities (a few hundred
            // rows tested, each a key-index and a row look-up on both sides) reads its pages
            // again every time, 3 ms instead of 0.3 ms (issue 38). It grows only as pages are read.
            try connection.execute("PRAGMA query_only = ON; PRAGMA cache_size = -16384")
            return Slot(connection: connection, generation: currentGeneration)
        } catch {
            lock.withLock {
                inUse -= 1
                lock.broadcast()
            }
            throw error
        }
    }

    private func checkIn(_ slot: Slot) {
        let keep = lock.withLock { () -> Bool in
            inUse -= 1
            lock.broadcast()
            guard !isClosed, slot.generation == generation else { return false }
            idle.append(slot)
            return true
        }
        if !keep { slot.connection.close() }
    }
}
