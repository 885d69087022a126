@_spi(Tool) import OfflineOData

/// `json`: the JSON layer on an OData V4 page, each figure next to a floor measured in the same run.
///
/// (a) Reading a page of 1,000 entities as events, touching every string and number, against one
///     pass over the same bytes that counts quote characters.
/// (b) Writing 50,000 entities as one `{"value":[...]}` response, against appending a preencoded
///     entity 50,000 times.
func jsonBenchmark() throws {
    let rows = (0..<1_000).map(BenchmarkRow.init)
    let page = try writeResponse(rows: rows, count: rows.count)
    let megabytes = Double(page.count) / 1_000_000
    print("json: page of \(rows.count) entities, \(page.count) bytes")

    // (a) Reading.
    var sink = 0
    let quoteLoop = Harness.median(samples: 31, iterations: 1) {
        var quotes = 0
        page.withUnsafeBufferPointer { bytes in
            for byte in bytes where byte == UInt8(ascii: "\"") { quotes &+= 1 }
        }
        sink &+= quotes
    }
    let events = try Harness.median(samples: 31, iterations: 1) { sink &+= try walkEvents(page) }
    let decoding = try Harness.median(samples: 31, iterations: 1) { sink &+= try walkAndDecode(page) }
    let tree = try Harness.median(samples: 15, iterations: 1) {
        if case .object(let members) = try JSONValue.parse(page) { sink &+= members.count }
    }
    let mbps = { (ns: Double) in megabytes / (ns / 1e9) }
    Harness.report("json read events (touch every token)", value: mbps(events), unit: "MB/s",
                   baseline: ("byte loop counting quotes", mbps(quoteLoop)), budget: ">= 300 MB/s")
    Harness.report("json read events", value: Double(rows.count) / (events / 1e9), unit: "entities/s")
    Harness.report("json read events + decode strings, int64 and decimals", value: mbps(decoding), unit: "MB/s",
                   baseline: ("byte loop counting quotes", mbps(quoteLoop)))
    Harness.report("json parse page into JSONValue", value: mbps(tree), unit: "MB/s",
                   baseline: ("byte loop counting quotes", mbps(quoteLoop)))

    // (b) Writing.
    let entityCount = 50_000
    var written: [UInt8] = []
    let writing = try Harness.median(samples: 15, iterations: entityCount) {
        written = try writeResponse(rows: rows, count: entityCount)
    }
    var one = JSONWriter()
    try writeEntity(rows[1], id: 1, keys: EntityKeys(), to: &one)
    let entity = one.bytes
    let total = written.count
    let appending = Harness.median(samples: 15, iterations: entityCount) {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(total)
        for _ in 0..<entityCount { buffer.append(contentsOf: entity) }
        sink &+= buffer.count
    }
    let writeMB = Double(total) / 1_000_000
    Harness.report("json write 50,000 entities", value: writing, unit: "ns/entity",
                   baseline: ("append preencoded entity", appending))
    Harness.report("json write 50,000 entities", value: writeMB / (writing * Double(entityCount) / 1e9), unit: "MB/s",
                   baseline: ("append preencoded entity", writeMB / (appending * Double(entityCount) / 1e9)), budget: ">= 300 MB/s")
    if sink == 42 { print("") } // keeps the work observable
}

/// One entity's values, as the store would fetch them.
private struct BenchmarkRow {
    let etag: String
    let name: String
    let description: String
    let price: String // Edm.Decimal as text
    let quantity: Int64
    let rating: Double
    let createdAt: String
    let category: String
    let discontinued: Bool
    let notes: String?

    init(_ i: Int) {
        etag = "W/\"\(i)\""
        let names = ["Widget", "Gadget \"Pro\"", "Müller & Söhne", "Café №\(i % 7)", "Tab\tSeparated", "日本語の製品", "Plain"]
        name = names[i % names.count] + " \(i)"
        description = "Item \(i): a dependable part for everyday use.\nSecond line with a backslash \\ and émoji 😀."
        price = "\(i * 37 % 100_000).\(i % 100 < 10 ? "0" : "")\(i % 100)"
        quantity = Int64(i * 13 % 1_000)
        rating = Double(i % 50) / 10 + 0.05
        createdAt = "2024-0\(1 + i % 9)-1\(i % 10)T10:\(10 + i % 50):00Z"
        category = ["Tools", "Toys", "Food", "Books"][i % 4]
        discontinued = i % 3 == 0
        notes = i % 2 == 0 ? nil : "Note \(i)"
    }
}

/// The member names, escaped once.
private struct EntityKeys {
    let etag = JSONWriter.EncodedKey("@odata.etag")
    let id = JSONWriter.EncodedKey("ID")
    let name = JSONWriter.EncodedKey("Name")
    let description = JSONWriter.EncodedKey("Description")
    let price = JSONWriter.EncodedKey("Price")
    let quantity = JSONWriter.EncodedKey("Quantity")
    let rating = JSONWriter.EncodedKey("Rating")
    let createdAt = JSONWriter.EncodedKey("CreatedAt")
    let category = JSONWriter.EncodedKey("Category")
    let discontinued = JSONWriter.EncodedKey("Discontinued")
    let notes = JSONWriter.EncodedKey("Notes")
}

private func writeEntity(_ row: borrowing BenchmarkRow, id: Int, keys: EntityKeys, to writer: inout JSONWriter) throws {
    writer.beginObject()
    writer.writeKey(keys.etag)
    writer.writeString(row.etag)
    writer.writeKey(keys.id)
    writer.writeNumber(id)
    writer.writeKey(keys.name)
    writer.writeString(row.name)
    writer.writeKey(keys.description)
    writer.writeString(row.description)
    writer.writeKey(keys.price)
    try writer.writeNumber(text: row.price)
    writer.writeKey(keys.quantity)
    writer.writeNumber(row.quantity)
    writer.writeKey(keys.rating)
    try writer.writeNumber(row.rating)
    writer.writeKey(keys.createdAt)
    writer.writeString(row.createdAt)
    writer.writeKey(keys.category)
    writer.writeString(row.category)
    writer.writeKey(keys.discontinued)
    writer.writeBool(row.discontinued)
    writer.writeKey(keys.notes)
    if let notes = row.notes { writer.writeString(notes) } else { writer.writeNull() }
    writer.endObject()
}

/// A V4 collection response with `count` entities, cycling through `rows`.
private func writeResponse(rows: [BenchmarkRow], count: Int) throws -> [UInt8] {
    let keys = EntityKeys()
    var writer = JSONWriter(capacity: count * 400)
    writer.beginObject()
    writer.writeKey("@odata.context")
    writer.writeString("$metadata#Products")
    writer.writeKey("value")
    writer.beginArray()
    for id in 0..<count {
        try writeEntity(rows[id % rows.count], id: id, keys: keys, to: &writer)
    }
    writer.endArray()
    writer.writeKey("@odata.nextLink")
    writer.writeString("Products?$skiptoken=\(count)")
    writer.endObject()
    return try writer.finish()
}

/// Walks every event and touches every string and number token's bytes.
private func walkEvents(_ page: [UInt8]) throws -> Int {
    var reader = JSONReader(bytes: page)
    var checksum = 0
    while true {
        switch try reader.next() {
        case .key(let token), .string(let token), .number(let token):
            checksum &+= reader.withBytes(of: token) { $0.count &+ Int($0.first ?? 0) }
        case .end:
            return checksum
        default:
            checksum &+= 1
        }
    }
}

/// Walks every event and converts every value as ingest would: strings decoded, integers to Int64,
/// other numbers kept as exact text.
private func walkAndDecode(_ page: [UInt8]) throws -> Int {
    var reader = JSONReader(bytes: page)
    var checksum = 0
    while true {
        switch try reader.next() {
        case .key(let token):
            checksum &+= reader.token(token, equals: "ID") ? 1 : 0
        case .string(let token):
            checksum &+= reader.decodedString(token).utf8.count
        case .number(let token):
            if let value = reader.int64(token) { checksum &+= Int(truncatingIfNeeded: value) } else { checksum &+= reader.text(of: token).utf8.count }
        case .end:
            return checksum
        default:
            checksum &+= 1
        }
    }
}
