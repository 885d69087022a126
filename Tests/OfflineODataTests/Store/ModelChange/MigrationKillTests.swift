#if canImport(Glibc)
import Glibc
#endif
import Testing
@_spi(Tool) @testable import OfflineOData

/// A kill -9 campaign during the migration to a new model (issue 34): a child process opens the
/// store and migrates it (a table of 20,000 rows rebuilt for a changed key type, with queued
/// requests), and is killed with SIGKILL after a random delay spread over the migration's own
/// duration; each time the store must open afterwards, sound, on the old model or the new, whole,
/// with its queue. `OOD_MIGRATION_KILLS` sets the number of kills (30 by default, in `make test`).
@Suite(.serialized) struct MigrationKillTests {
    static let rows = 20_000
    static let queued = 3
    static let keyElement = #"<Property Name="agencynum" Type="Edm.String" Nullable="false" MaxLength="8"/>"#

    /// The store before the migration: many agencies, three queued requests.
    func makePristine(at path: String) throws {
        let store = try LocalStore.create(path: path, metadata: FlightSample.v4Metadata, serviceRoot: "http://127.0.0.1:1/")
        defer { store.close() }
        try store.file.withConnection { db throws(ODataError) in
            try db.transaction { () throws(ODataError) in
                let insert = try db.prepare(#"INSERT INTO "es/TravelagencyCollection" ("agencynum", "name", "city") VALUES (?1, ?2, ?3)"#)
                for index in 0..<Self.rows {
                    try insert.run([.text(String(index + 10_000_000)), .text("Agency \(index)"), .text("City \(index % 97)")])
                }
            }
        }
        _ = try store.write(method: "POST", url: "TravelagencyCollection", body: Array(#"{"agencynum":"1","name":"New"}"#.utf8))
        _ = try store.write(method: "PATCH", url: "TravelagencyCollection('10000000')", body: Array(#"{"name":"Changed"}"#.utf8))
        _ = try store.write(method: "DELETE", url: "TravelagencyCollection('10000001')")
    }

    /// The new model's document: the key's type changed, so the table is rebuilt.
    func newDocument() throws -> (text: String, model: MetadataModel, record: ServiceModelRecord) {
        let text = try #require(ServiceModelChangeTests.replacingFirst(
            Self.keyElement, with: #"<Property Name="agencynum" Type="Edm.Int32" Nullable="false"/>"#, in: FlightSample.v4Metadata))
        return (text, try MetadataReader.read(text), ServiceModelRecord(etag: nil, lastModified: nil, hash: "test"))
    }

    func copy(_ from: String, to: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { unlink(to + suffix) }
        guard let bytes = readFile(from) else { return }
        let fd = open(to, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Opens the store and migrates it; what the child process does (and the timing run).
    static func migrate(_ path: String, to document: (text: String, model: MetadataModel, record: ServiceModelRecord)) throws {
        let store = try LocalStore.open(path: path)
        _ = try store.adoptModel(document)
        store.close()
    }

    /// Closes every descriptor above standard error (the child's first step after `fork`).
    static func closeInheritedDescriptors() {
        var open: [Int32] = []
        if let folder = opendir("/proc/self/fd") {
            while let entry = readdir(folder) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if let fd = Int32(name), fd > 2 { open.append(fd) }
            }
            closedir(folder)
        }
        for fd in open { close(fd) }
    }

    /// What the store holds after a kill: which model, and whether the rest agrees with it.
    func verify(_ path: String, newText: String) throws -> Bool {
        let store = try LocalStore.open(path: path)
        defer { store.close() }
        #expect(try store.file.check(quick: true) == [])
        let (metadata, keyType, count, queue) = try store.file.withConnection { db throws(ODataError) in
            (try StoreInfoTable.value("metadata", in: db),
             try db.scalarText(#"SELECT type FROM pragma_table_info('es/TravelagencyCollection') WHERE name = 'agencynum'"#),
             try db.scalarInt(#"SELECT count(*) FROM "es/TravelagencyCollection""#),
             try RequestQueueTable.all(in: db).count)
        }
        let isNew = metadata == newText
        #expect(isNew || metadata == FlightSample.v4Metadata)
        #expect(keyType == (isNew ? "INTEGER" : "TEXT"))
        #expect(count == Int64(Self.rows + 1))
        #expect(queue == Self.queued)
        // The model the store opened with is the one its tables have.
        #expect(store.model.entityType(named: "RMTSAMPLEFLIGHT.Travelagency")?.property(named: "agencynum")?.type.name
                == (isNew ? "Edm.Int32" : "Edm.String"))
        return isNew
    }

    @Test func aMigrationKilledAtRandomLeavesTheStoreOnOneModelWholeWithItsQueue() throws {
        let kills = getenv("OOD_MIGRATION_KILLS").flatMap { Int(String(cString: $0)) } ?? 30
        let folder = TemporaryFolder()
        let pristine = folder.file("pristine.store"), work = folder.file("work.store")
        try makePristine(at: pristine)
        let document = try newDocument()
        // The migration's own time, uncontended: the kills are spread over twice it.
        copy(pristine, to: work)
        let started = monotonicNanoseconds()
        try Self.migrate(work, to: document)
        let duration = max(1_000, Int((monotonicNanoseconds() - started) / 1_000))
        #expect(try verify(work, newText: document.text))

        var generator = SystemRandomNumberGenerator()
        var outcomes = (old: 0, new: 0)
        for _ in 0..<kills {
            copy(pristine, to: work)
            let pid = fork()
            if pid == 0 {
                // The child: no test machinery, only the migration, then out. It first closes what
                // it inherited: a fork without exec shares the open files of the tests running
                // beside this one, and an upload lock (an `flock`) held by such a copy would stay
                // taken after its test released it, until the kill.
                Self.closeInheritedDescriptors()
                do { try Self.migrate(work, to: document) } catch { _exit(2) }
                _exit(0)
            }
            try #require(pid > 0, "fork failed")
            usleep(useconds_t(Int.random(in: 0...(2 * duration), using: &generator)))
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            if try verify(work, newText: document.text) { outcomes.new += 1 } else { outcomes.old += 1 }
        }
        print("migration kill campaign: \(kills) kills over \(2 * duration) µs (migration \(duration) µs): "
              + "\(outcomes.old) on the old model, \(outcomes.new) on the new")
        #expect(outcomes.old + outcomes.new == kills)
    }
}
