/// Reads already understood, by URL text: the bound request, its SQL and its shape, so a read that
/// repeats (a list a screen shows again, the same key read) is neither parsed, bound nor
/// translated again. This is most of a small read's fixed cost (issue 23: a `$top=20` read spent
/// about a fifth of its instructions in parse and bind and a tenth in translation).
///
/// Belongs to one ``LocalReader`` (one read connection, one thread at a time), so no lock. What a
/// kept entry holds depends only on the URL, the model and the reader's parser limits, all fixed
/// for the reader (a reader with other limits is a new reader), and for a paged navigation filter
/// on the indexes there were (``ReadPlan/readsIndexes``): such an entry is used only while the
/// schema version is its ``Entry/indexesVersion``. Other entries need no invalidation when an
/// index is made: the SQL names tables, never an index, and SQLite compiles a prepared statement
/// again when the schema changes (`sqlite3_prepare_v3`), as making an index does. A read with `now()` is not kept (its SQL holds the
/// instant), nor a URL longer than ``maximumURLLength``, so the cache's memory stays small (a URL
/// may be up to 1 MiB).
final class ReadPlanCache {
    /// One understood read. A class: a look-up hands out one reference, where a struct of these
    /// fields was copied field by field (a retain each) and destroyed again on every read.
    final class Entry {
        let request: BoundRequest
        let plan: ReadPlan
        /// What the read counts for automatic indexes (nil: nothing).
        let readShape: ReadShape?
        /// What its answer holds, for ``StoreResponse/shape``.
        let answerShape: AnswerShape
        /// The URL's path, for the V4 context of a property read and for "not found" messages.
        let pathText: String
        /// The schema version of the indexes the SQL was chosen by (see ``IndexedColumns``).
        let indexesVersion: Int64?
        /// The V4 answer's `@odata.context` of a collection or entity read, made once (nil for
        /// others, and in V2, which has none).
        var context: String? = nil
        /// The main statement's layout of the set's own type, once an answer made it.
        let layout = KeptLayout()
        /// The main statement's place in the reader's statement cache, once an answer used it.
        let statement = KeptStatement()

        init(request: BoundRequest, plan: ReadPlan, readShape: ReadShape?, answerShape: AnswerShape, pathText: String,
             indexesVersion: Int64?) {
            self.request = request
            self.plan = plan
            self.readShape = readShape
            self.answerShape = answerShape
            self.pathText = pathText
            self.indexesVersion = indexesVersion
        }
    }

    /// URLs up to this many bytes are kept.
    static let maximumURLLength = 2048

    private var entries: RecentCache<String, Entry>

    init(capacity: Int = 128) { entries = RecentCache(capacity: capacity) }

    func entry(for url: String) -> Entry? { entries.value(for: url) }

    func keep(_ entry: Entry, for url: String) {
        guard !entry.plan.readsClock, url.utf8.count <= Self.maximumURLLength else { return }
        entries.insert(entry, for: url)
    }

    var count: Int { entries.count }
}
