@_spi(Tool) import OfflineOData

/// The human forms of what a store reports, shared by `status`, `archive` and `store info`, so a
/// queued request, an archived one or a defining request reads the same in each.

/// Prints the queued requests: a count line, then a table when there are any.
func printQueue(_ queue: [QueuedRequest]) {
    print("queue: \(counted(queue.count, "request")) waiting for upload")
    var table = TextTable("ID", "METHOD", "URL", "TRANSACTION", "QUEUED AT")
    for request in queue {
        table.append("\(request.id)", request.method.rawValue, request.url, request.transactionID ?? "-", request.createdAt)
    }
    if !table.isEmpty { table.print() }
}

/// Prints the error archive: a count line, then a table when there are any.
func printErrorArchive(_ archive: [ArchivedRequest]) {
    print("error archive: \(archive.count)")
    var table = TextTable("ID", "KIND", "METHOD", "URL", "STATUS", "MESSAGE")
    for entry in archive {
        table.append("\(entry.request.id)", entry.kind.rawValue, entry.request.method.rawValue, entry.request.url,
                     entry.httpStatus.map(String.init) ?? "-", entry.message)
    }
    if !table.isEmpty { table.print() }
    for entry in archive {
        guard let conflict = entry.conflict else { continue }
        print("conflict #\(entry.request.id) (\(conflict.served.isNull ? "the entity is gone from the service" : "who changed what")):")
        for change in conflict.properties {
            print("  \(change.name): original \(jsonText(change.original)), local \(change.local.map(jsonText) ?? "-"), "
                  + "service \(change.served.map(jsonText) ?? "-") (\(change.changedBy.rawValue))")
        }
    }
}

/// `value` as compact JSON text.
private func jsonText(_ value: JSONValue) -> String {
    var writer = JSONWriter()
    writer.writeValue(value)
    return String(decoding: writer.bytes, as: UTF8.self)
}

/// Prints the defining requests: a count line, then a table when there are any.
/// The indexes beyond the key's, with where each came from and why.
func printIndexes(_ indexes: [StoreIndex]) {
    print("indexes: \(indexes.count)")
    var table = TextTable("ENTITY SET", "PROPERTIES", "ORIGIN", "REASON")
    for index in indexes {
        table.append(index.entitySet, index.properties.joined(separator: ","), index.origin.rawValue, index.reason)
    }
    if !table.isEmpty { table.print() }
}

func printDefiningRequests(_ requests: [DefiningRequest]) {
    print("defining requests: \(requests.count)")
    var table = TextTable("NAME", "LAST DOWNLOAD", "DELTA LINK", "URL")
    for request in requests {
        table.append(request.name, request.lastDownload ?? "never", request.deltaLink == nil ? "no" : "kept", request.url)
    }
    if !table.isEmpty { table.print() }
}
