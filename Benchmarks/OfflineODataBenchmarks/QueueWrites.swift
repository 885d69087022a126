@_spi(Tool) import OfflineOData

/// `queue-writes STORE COUNT [TRANSACTION_SIZE]`: not a benchmark but the set-up of
/// `Benchmarks/python/batch_upload.py`: queues COUNT changes in an existing store through
/// `LocalStore.write`, the engine's own API (one `offline-odata request` process per change takes
/// about 100 ms, so 10,000 would take minutes).
///
/// Three changes in four are creates of travel agencies; every third create is then updated
/// (`PATCH` of the entity created offline: `$<n>` with `If-Match: *` in a `$batch`). With
/// TRANSACTION_SIZE, each run of that many changes shares one transaction id, as an app saving a
/// form of many rows would (`upload --batch --group-by-transaction` sends each as one change set).
func queueWrites(_ arguments: [String]) throws {
    guard (2...3).contains(arguments.count), let count = Int(arguments[1]), count > 0,
          let transactionSize = arguments.count == 3 ? Int(arguments[2]) : Int.max, transactionSize > 0 else {
        throw BenchmarkError("usage: offline-odata-benchmarks queue-writes STORE COUNT [TRANSACTION_SIZE]")
    }
    let store = try LocalStore.open(path: arguments[0])
    defer { store.close() }
    var queued = 0
    var index = 0
    func transaction() -> String? { transactionSize == .max ? nil : "t\(queued / transactionSize)" }
    while queued < count {
        let key = "8" + String(1_000_000 + index).dropFirst()
        _ = try store.write(method: "POST", url: "TravelagencyCollection",
                            body: Array(#"{"agencynum":"\#(key)","name":"Batch \#(index)","city":"Rome","country":"IT"}"#.utf8),
                            transactionID: transaction())
        queued += 1
        if index % 3 == 0 && queued < count {
            _ = try store.write(method: "PATCH", url: "TravelagencyCollection('\(key)')", body: Array(#"{"city":"Milan"}"#.utf8),
                                transactionID: transaction())
            queued += 1
        }
        index += 1
    }
    print("queued \(queued) changes")
}
