#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// Rekey of an open store (``StoreOperation/rekey(to:)``): the store goes on under the new key,
/// with the writes and reads issued around it, its queue and its live queries.
@Suite struct OpenStoreRekeyTests {
    /// Issues `count` agency creates without waiting; returns a box that counts their successes.
    static func startWrites(_ store: ODataStore, from first: Int, count: Int) -> (done: ConditionLock, ok: Protected<Int>, ended: Protected<Int>) {
        let done = ConditionLock(), ok = Protected(0), ended = Protected(0)
        for index in first..<(first + count) {
            let digits = String(index)
            let key = String(repeating: "0", count: max(0, 8 - digits.count)) + digits
            store.start(.request(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody(key)))) { result in
                if case .success = result { ok.withLock { $0 += 1 } }
                done.withLock {
                    ended.withLock { $0 += 1 }
                    done.broadcast()
                }
            }
        }
        return (done, ok, ended)
    }

    static func wait(_ writes: (done: ConditionLock, ok: Protected<Int>, ended: Protected<Int>), for count: Int) -> Bool {
        let deadline = monotonicSeconds() + 60
        return writes.done.withLock {
            while writes.ended.withLock({ $0 }) < count && monotonicSeconds() < deadline { writes.done.wait(until: deadline) }
            return writes.ended.withLock { $0 } == count
        }
    }

    /// Whether `key` is the raw key `bytes` (keys are not comparable, on purpose).
    static func isRaw(_ key: StoreKey?, _ bytes: [UInt8]) -> Bool {
        if case .raw(let held)? = key { return held == bytes }
        return false
    }

    @Test func anOpenStoreTakesANewKeyWithTheWritesAroundItItsQueueAndItsWatchesKept() throws {
        let folder = TemporaryFolder()
        var options = offlineFlightOptions(in: folder)
        options.key = EncryptionFixture.rawKey
        let store = ODataStore.open(options)
        let log = AnswerLog()
        let query = try store.watch("TravelagencyCollection/$count") { log.record($0) }
        defer { query.cancel() }
        // Writes queued before the rekey, the rekey, writes queued behind it: all land.
        let before = Self.startWrites(store, from: 1, count: 40)
        let rekeyed = Protected<Result<Void, ODataError>?>(nil)
        let rekeyDone = ConditionLock()
        store.start(.rekey(to: EncryptionFixture.otherRawKey)) { result in
            rekeyDone.withLock {
                rekeyed.withLock { $0 = result }
                rekeyDone.broadcast()
            }
        }
        let after = Self.startWrites(store, from: 41, count: 40)
        // Reads while the rekey may run: each answers (waiting for it, not failing).
        for _ in 0..<10 { _ = try store.executeAndWait(ODataRequest(url: "TravelagencyCollection/$count")) }
        #expect(Self.wait(before, for: 40) && Self.wait(after, for: 40))
        #expect(before.ok.withLock { $0 } == 40 && after.ok.withLock { $0 } == 40)
        rekeyDone.withLock { while rekeyed.withLock({ $0 }) == nil { rekeyDone.wait(until: monotonicSeconds() + 60) } }
        if case .failure(let error)? = rekeyed.withLock({ $0 }) { Issue.record("rekey failed: \(error)") }
        #expect(Self.isRaw(store.key, Array(repeating: 7, count: 32)))
        #expect(try store.executeAndWait(ODataRequest(url: "TravelagencyCollection/$count")).text == "80")
        #expect(try store.performAndWait(.requestQueue).count == 80)
        // The watch saw the last state, through the new connections.
        #expect(log.wait { $0.last.flatMap { try? $0.get().text } == "80" })
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("00000081")))
        #expect(log.wait { $0.last.flatMap { try? $0.get().text } == "81" })
        query.cancel()
        store.close()

        let path = try #require(options.path)
        #expect { try LocalStore.open(path: path, key: EncryptionFixture.rawKey) } throws: { ($0 as? ODataError)?.code == .key }
        let reopened = try LocalStore.open(path: path, key: EncryptionFixture.otherRawKey)
        #expect(try reopened.file.queuedRequests().count == 81)
        reopened.close()
        #expect(!fileExists(path + ".rekeying"))
    }

    @Test func anOpenPlainStoreIsEncryptedAndDecryptedAgain() throws {
        let folder = TemporaryFolder()
        let options = offlineFlightOptions(in: folder)
        let path = try #require(options.path)
        let store = ODataStore.open(options)
        defer { store.close() }
        let marker = "RekeyMarker-zq7919"
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection",
                                                  body: Array(#"{"agencynum":"00000001","name":"\#(marker)","city":"Boston"}"#.utf8)))
        #expect(!EncryptionFixture.filesContaining(marker, in: folder.path).isEmpty)
        try store.performAndWait(.rekey(to: .passphrase("open words")))
        #expect(StoreCipher.isEncrypted(path))
        #expect(try store.performAndWait(.describe).encryption != nil)
        // A write after the rekey goes through the new key.
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("00000002")))
        _ = try store.performAndWait(.checkStore(quick: false))
        #expect(EncryptionFixture.filesContaining(marker, in: folder.path).isEmpty)
        #expect(try store.performAndWait(.requestQueue).count == 2)
        try store.performAndWait(.rekey(to: nil))
        #expect(!StoreCipher.isEncrypted(path))
        #expect(store.key == nil)
        #expect(try store.executeAndWait(ODataRequest(url: "TravelagencyCollection/$count")).text == "2")
        // No key to change from or to.
        #expect { try store.performAndWait(.rekey(to: nil)) } throws: { ($0 as? ODataError)?.code == .misuse }
        #expect(try store.executeAndWait(ODataRequest(url: "TravelagencyCollection('00000001')")).text.contains(marker))
    }

    @Test func anotherHandleOnTheFileMakesTheRekeyFailAndTheStoreGoesOnWithItsKey() throws {
        let folder = TemporaryFolder()
        var options = offlineFlightOptions(in: folder)
        options.key = EncryptionFixture.rawKey
        let store = ODataStore.open(options)
        defer { store.close() }
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("00000001")))
        let path = try #require(options.path)
        let other = try LocalStore.open(path: path, key: EncryptionFixture.rawKey)
        defer { other.close() }
        let bytes = EncryptionFixture.bytes(of: path)
        #expect { try store.performAndWait(.rekey(to: EncryptionFixture.otherRawKey)) } throws: { ($0 as? ODataError)?.code == .busy }
        #expect(Self.isRaw(store.key, Array(0..<32)))
        #expect(!fileExists(path + ".rekeying"))
        // The same key, the same store: both handles go on.
        _ = try store.executeAndWait(ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody("00000002")))
        #expect(try other.file.queuedRequests().count == 2)
        #expect(EncryptionFixture.bytes(of: path).count >= bytes.count)
    }
}
