@_spi(Tool) import OfflineOData

/// The human forms of the sync statistics and the sync log, for `status` and `log`.

/// Prints the last download of each defining request, the queue's age, what is in doubt and the last upload.
func printSyncStatistics(_ sync: SyncStatistics) {
    print("last downloads: \(sync.downloads.count)")
    var table = TextTable("NAME", "OUTCOME", "ENTITIES", "BYTES", "PAGES", "TIME", "FINISHED AT", "LAST SUCCESS")
    for download in sync.downloads {
        let entities = download.expectedEntities.map { "\(download.entities)/\($0)" } ?? "\(download.entities)"
        table.append(download.definingRequest, download.outcome.rawValue, entities, TransferMeter.bytesText(download.bytes),
                     "\(download.pages)", "\(download.durationMilliseconds) ms", download.finishedAt,
                     download.lastSuccessAt ?? "never")
    }
    if !table.isEmpty { table.print() }
    for download in sync.downloads {
        if let message = download.message { print("  \(download.definingRequest): \(message)") }
    }
    // The queue's and the archive's sizes are printed above them (printQueue, printErrorArchive).
    if let oldest = sync.oldestQueuedAt {
        print("oldest queued request: \(oldest) (\(sync.oldestQueuedAgeSeconds.map { "\($0) s ago" } ?? "age unknown"))")
    }
    print("in doubt: \(sync.queuedInDoubt) queued, \(sync.archivedInDoubt) archived")
    guard let upload = sync.lastUpload else {
        print("last upload: none")
        return
    }
    print("last upload: \(upload.outcome.rawValue) at \(upload.finishedAt): \(upload.sent) sent, "
          + "\(upload.archived) moved to the error archive, \(TransferMeter.bytesText(upload.bytes)), "
          + "\(upload.durationMilliseconds) ms; last success \(upload.lastSuccessAt ?? "never")"
          + (upload.message.map { "; \($0)" } ?? ""))
}

/// Prints log entries as a table, newest first.
func printSyncLog(_ entries: [SyncLogEntry]) {
    print("log: \(counted(entries.count, "entry", "entries"))")
    var table = TextTable("ID", "AT", "KIND", "WHAT", "OUTCOME", "ENTITIES", "BYTES", "REMAINING", "TIME", "MESSAGE")
    for entry in entries {
        let what = entry.definingRequest ?? entry.requestID.map { "request \($0)" } ?? "-"
        table.append("\(entry.id)", entry.at, entry.kind.rawValue, what, entry.outcome.rawValue,
                     entry.entities.map(String.init) ?? "-", entry.bytes.map(TransferMeter.bytesText) ?? "-",
                     entry.remaining.map(String.init) ?? "-", entry.durationMilliseconds.map { "\($0) ms" } ?? "-",
                     entry.message ?? "")
    }
    if !table.isEmpty { table.print() }
}
