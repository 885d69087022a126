/// The layout of a store file and the migrations that bring an older file up to date.
///
/// A store file is an SQLite database whose `application_id` is ``applicationID`` and which has the
/// table `ood_store_info` with the row `format_version`. Each migration moves a file from version
/// `n - 1` to `n` inside one transaction; a file newer than this engine is refused, never changed.
enum StoreFormat {
    /// `PRAGMA application_id`: the bytes "OOD1", so `file(1)` and a hex dump tell a store apart.
    static let applicationID: Int64 = 0x4F4F_4431

    /// The newest format this engine writes.
    static var currentVersion: Int { migrations.count }

    /// `migrations[i]` turns a version-`i` file into a version-`i + 1` file.
    static let migrations: [String] = [
        // 1: the store's own bookkeeping.
        """
        CREATE TABLE ood_store_info (key TEXT PRIMARY KEY NOT NULL, value TEXT) WITHOUT ROWID;
        """,
        // 2: defining requests, which entities they hold, links without referential constraints,
        //    the request queue and the error archive.
        """
        CREATE TABLE ood_defining_request (
            name TEXT PRIMARY KEY NOT NULL,
            url TEXT NOT NULL,
            position INTEGER NOT NULL,
            last_download TEXT,
            delta_link TEXT
        ) WITHOUT ROWID;
        CREATE TABLE ood_membership (
            entity_set TEXT NOT NULL,
            entity_id INTEGER NOT NULL,
            defining_request TEXT NOT NULL,
            PRIMARY KEY (entity_set, entity_id, defining_request)
        ) WITHOUT ROWID;
        CREATE INDEX ood_membership_request ON ood_membership (defining_request, entity_set);
        -- A rowid table: SQLite 3.40's integrity_check wrongly reports NULL in the indexed NOT NULL
        -- column target_set of the same table declared WITHOUT ROWID.
        CREATE TABLE ood_link (
            source_set TEXT NOT NULL,
            source_id INTEGER NOT NULL,
            navigation TEXT NOT NULL,
            target_set TEXT NOT NULL,
            target_id INTEGER NOT NULL,
            PRIMARY KEY (source_set, navigation, source_id, target_id)
        );
        CREATE INDEX ood_link_target ON ood_link (target_set, target_id);
        CREATE TABLE ood_request_queue (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            method TEXT NOT NULL,
            url TEXT NOT NULL,
            body TEXT,
            headers TEXT,
            entity_set TEXT,
            entity_id INTEGER,
            etag TEXT,
            content_id TEXT,
            transaction_id TEXT,
            created_at TEXT NOT NULL
        );
        CREATE INDEX ood_request_queue_entity ON ood_request_queue (entity_set, entity_id);
        CREATE TABLE ood_error_archive (
            id INTEGER PRIMARY KEY,
            method TEXT NOT NULL,
            url TEXT NOT NULL,
            body TEXT,
            headers TEXT,
            entity_set TEXT,
            entity_id INTEGER,
            etag TEXT,
            content_id TEXT,
            transaction_id TEXT,
            created_at TEXT NOT NULL,
            http_status INTEGER,
            message TEXT NOT NULL,
            failed_at TEXT NOT NULL
        );
        """,
        // 3: the last synced values of each entity changed offline, so an undo can restore them.
        //    One row per stored column; `value` has no type, so each value keeps its SQLite type.
        """
        CREATE TABLE ood_original (
            entity_set TEXT NOT NULL,
            entity_id INTEGER NOT NULL,
            property TEXT NOT NULL,
            value,
            PRIMARY KEY (entity_set, entity_id, property)
        ) WITHOUT ROWID;
        """,
        // 4: when a queued request was first sent, for `Repeatability-First-Sent` (a retry sends
        //    the first attempt's date, so the service can tell it is the same request).
        """
        ALTER TABLE ood_request_queue ADD COLUMN first_sent TEXT;
        ALTER TABLE ood_error_archive ADD COLUMN first_sent TEXT;
        """,
        // 5: memberships keyed by defining request first, without the second index
        //    (``MembershipTable``): a download writes one B-tree per membership instead of two.
        //    The columns keep their order.
        """
        CREATE TABLE ood_membership_5 (
            entity_set TEXT NOT NULL,
            entity_id INTEGER NOT NULL,
            defining_request TEXT NOT NULL,
            PRIMARY KEY (defining_request, entity_set, entity_id)
        ) WITHOUT ROWID;
        INSERT INTO ood_membership_5 (entity_set, entity_id, defining_request)
            SELECT entity_set, entity_id, defining_request FROM ood_membership;
        DROP TABLE ood_membership;
        ALTER TABLE ood_membership_5 RENAME TO ood_membership;
        """,
        // 6: exactly-once uploads. A queued request is 'pending' until the upload is about to send
        //    it; it is marked 'sent' (in doubt) durably before it leaves, and stays so until its
        //    answer is recorded, so a request whose answer was lost is reconciled before it is sent
        //    again (``InDoubtReconciler``). An archived request says why it is there (``ArchiveKind``).
        """
        ALTER TABLE ood_request_queue ADD COLUMN state TEXT NOT NULL DEFAULT 'pending';
        ALTER TABLE ood_error_archive ADD COLUMN kind TEXT NOT NULL DEFAULT 'refused';
        """,
        // 7: the indexes the store made beyond the key's (``IndexTable``): declared by the app or
        //    made by the engine from the reads it saw, each with its origin and why it was made;
        //    and how often each read shape was seen (``ReadShapeTable``). `properties` holds the
        //    property paths joined by ','. Older stores have none.
        """
        CREATE TABLE ood_index (
            entity_set TEXT NOT NULL,
            properties TEXT NOT NULL,
            name TEXT NOT NULL,
            origin TEXT NOT NULL,
            reason TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (entity_set, properties)
        ) WITHOUT ROWID;
        CREATE TABLE ood_read_shape (
            entity_set TEXT NOT NULL,
            properties TEXT NOT NULL,
            reads INTEGER NOT NULL,
            PRIMARY KEY (entity_set, properties)
        ) WITHOUT ROWID;
        """,
        // 8: what the syncs did, for `status` and the log (``SyncStatisticsTable``, ``SyncLogTable``): the last download
        //    of each defining request, the last upload (one row), and a bounded log of downloads,
        //    uploads and refusals (``SyncLogTable/capacity`` rows, the oldest dropped first).
        """
        CREATE TABLE ood_download_statistics (
            defining_request TEXT PRIMARY KEY NOT NULL,
            entities INTEGER NOT NULL,
            bytes INTEGER NOT NULL,
            pages INTEGER NOT NULL,
            duration_ms INTEGER NOT NULL,
            expected_entities INTEGER,
            outcome TEXT NOT NULL,
            message TEXT,
            finished_at TEXT NOT NULL,
            last_success_at TEXT
        ) WITHOUT ROWID;
        CREATE TABLE ood_upload_statistics (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            sent INTEGER NOT NULL,
            archived INTEGER NOT NULL,
            bytes INTEGER NOT NULL,
            duration_ms INTEGER NOT NULL,
            outcome TEXT NOT NULL,
            message TEXT,
            finished_at TEXT NOT NULL,
            last_success_at TEXT
        );
        CREATE TABLE ood_sync_log (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            at TEXT NOT NULL,
            kind TEXT NOT NULL,
            defining_request TEXT,
            request_id INTEGER,
            entities INTEGER,
            bytes INTEGER,
            remaining INTEGER,
            duration_ms INTEGER,
            outcome TEXT NOT NULL,
            message TEXT
        );
        """,
        // 9: requests the app asked to be sent as they are, which the queue's compaction
        //    (``QueueCompaction``) leaves alone; 0 for every request queued before.
        """
        ALTER TABLE ood_request_queue ADD COLUMN no_merge INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE ood_error_archive ADD COLUMN no_merge INTEGER NOT NULL DEFAULT 0;
        """,
        // 10: resumable downloads (``DownloadResumeTable``). The pages of a download in progress are
        //    kept as the service sent them, each committed with the point to resume from, until the
        //    last one is there; then they are written into the tables in one transaction.
        """
        CREATE TABLE ood_download_resume (
            defining_request TEXT PRIMARY KEY NOT NULL,
            url TEXT NOT NULL,
            service_root TEXT NOT NULL,
            is_delta INTEGER NOT NULL,
            from_delta_link TEXT,
            next_link TEXT,
            pages INTEGER NOT NULL,
            entities INTEGER NOT NULL,
            delta_link TEXT,
            started_at INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE ood_download_page (
            id INTEGER PRIMARY KEY,
            defining_request TEXT NOT NULL,
            page INTEGER NOT NULL,
            body BLOB NOT NULL,
            UNIQUE (defining_request, page)
        );
        """,
        // 11: what a conflict was made of (``ConflictTable``): beside an archived request, the
        //    service's entity, the values the change was made on and the change; and the changes a
        //    conflict policy discarded, kept readable until the app clears them.
        """
        CREATE TABLE ood_conflict (
            request_id INTEGER PRIMARY KEY,
            outcome TEXT NOT NULL,
            policy TEXT NOT NULL,
            entity_set TEXT,
            entity_id INTEGER,
            method TEXT NOT NULL,
            url TEXT NOT NULL,
            http_status INTEGER,
            original TEXT NOT NULL,
            local TEXT NOT NULL,
            served TEXT NOT NULL,
            properties TEXT NOT NULL,
            at TEXT NOT NULL
        );
        """,
        // 12: media streams (``StreamTable``, docs/MEDIA.md). A defining request may ask for the
        //    streams of its media entities (`streams`). Each stream is a file in the folder beside
        //    the store (``StreamFolder``), recorded here with what the service said of it and what
        //    `store check` verifies: the media ETag, the entity's ETag when it was fetched (a delta
        //    that does not change it leaves the stream alone), content type, length and SHA-256.
        //    `state`: 'partial' (a download in progress: `received` bytes are in the file's
        //    temporary name), 'complete', or 'local' (written offline, not yet uploaded).
        """
        ALTER TABLE ood_defining_request ADD COLUMN streams INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE ood_stream (
            entity_set TEXT NOT NULL,
            entity_id INTEGER NOT NULL,
            file TEXT NOT NULL UNIQUE,
            state TEXT NOT NULL,
            etag TEXT,
            entity_etag TEXT,
            content_type TEXT,
            length INTEGER,
            sha256 TEXT,
            received INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (entity_set, entity_id)
        );
        """,
        // 13: V4 `Edm.Stream` properties kept like media streams: a stream is named by its entity
        //    and `property` ('' for the media entity's own stream, `$value`). SQLite cannot change
        //    a primary key in place, so the table is made again with the rows it had.
        """
        CREATE TABLE ood_stream_13 (
            entity_set TEXT NOT NULL,
            entity_id INTEGER NOT NULL,
            property TEXT NOT NULL DEFAULT '',
            file TEXT NOT NULL UNIQUE,
            state TEXT NOT NULL,
            etag TEXT,
            entity_etag TEXT,
            content_type TEXT,
            length INTEGER,
            sha256 TEXT,
            received INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (entity_set, entity_id, property)
        );
        INSERT INTO ood_stream_13 (entity_set, entity_id, file, state, etag, entity_etag, content_type, length, sha256, received)
            SELECT entity_set, entity_id, file, state, etag, entity_etag, content_type, length, sha256, received FROM ood_stream;
        DROP TABLE ood_stream;
        ALTER TABLE ood_stream_13 RENAME TO ood_stream;
        """,
        // 14: the media ETag the latest downloaded payload announced for a stream (V4
        //    `@odata.mediaEtag`, `Prop@odata.mediaEtag`, V2 `__metadata.media_etag`), so a download
        //    fetches the streams whose media ETag changed, whatever the entity's ETag did. NULL
        //    when no payload announced one since the stream was recorded (existing rows): the
        //    entity's ETag decides then, as before.
        """
        ALTER TABLE ood_stream ADD COLUMN announced_etag TEXT;
        """,
    ]
}
