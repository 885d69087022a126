import OfflineOData

/// `queue-writes STORE COUNT`: not a benchmark but the set-up of `Benchmarks/python/batch_upload.py`:
/// queues COUNT changes in an existing store through `OfflineStore.write`, the engine's own API
/// (one `offline-odata request` process per change takes about 100 ms, so 10,000 would take minutes).
///
/// Three changes in four are creates of travel agencies; every third create is then updated
/// (`PATCH` of the entity created offline: `$<n>` with `If-Match: *` in a `$batch`).
func queueWrites(_ arguments: [String]) throws {
    guard arguments.count == 2, let count = Int(arguments[1]), count > 0 else {
        throw BenchmarkError("usage: offline-odata-benchmarks queue-writes STORE COUNT")
    }
    let store = try OfflineStore.open(path: arguments[0])
    defer { store.close() }
    var queued = 0
    var index = 0
    while queued < count {
        let key = "8" + String(1_000_000 + index).dropFirst()
        _ = try store.write(method: "POST", url: "TravelagencyCollection",
                            body: Array(#"{"agencynum":"\#(key)","name":"Batch \#(index)","city":"Rome","country":"IT"}"#.utf8))
        queued += 1
        if index % 3 == 0 && queued < count {
            _ = try store.write(method: "PATCH", url: "TravelagencyCollection('\(key)')", body: Array(#"{"city":"Milan"}"#.utf8))
            queued += 1
        }
        index += 1
    }
    print("queued \(queued) changes")
}
