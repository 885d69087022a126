import CLibXML2
#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) import OfflineOData

/// Building the model of large `$metadata` documents against libxml2 alone parsing the same bytes.
///
/// Baseline: an `xmlTextReader` over the same bytes, with the same options as the engine's reader,
/// that reads every node and does nothing with it (the floor for any streaming reader on libxml2).
/// For reference, a DOM parse (`xmlReadMemory` + `xmlFreeDoc`) is printed too. Budget: ≤ 2×.
///
/// The reader parses a large document on a second thread while it builds the model on the
/// calling one (`XMLParseAhead`), so the time is the wall clock; the CPU time of both threads
/// together (the mean over its 17 runs, warm-ups included) is printed beside it against the baseline's.
func metadataBenchmark() throws {
    let documents = [
        ("Microsoft Graph v1.0", "msgraph-metadata/v1.0-Prod.csdl.xml"),
        ("Dynamics CRM", "simple-odata-client/DynamicsCRM.xml"),
    ]
    for (name, path) in documents {
        guard let bytes = benchmarkFixture(path) else {
            print("metadata: fixture \(path) not found (set OOD_FIXTURES)")
            continue
        }
        var entityTypes = 0
        var cpuStart = Harness.processCPUTime()
        let model = try Harness.median(samples: 15, warmup: 2) {
            entityTypes = try MetadataReader.read(bytes).counts.entityTypes
        }
        let modelCPU = Double(Harness.processCPUTime() - cpuStart) / 17
        cpuStart = Harness.processCPUTime()
        let readerLoop = Harness.median(samples: 15, warmup: 2) { libxml2ReaderLoop(bytes) }
        let readerLoopCPU = Double(Harness.processCPUTime() - cpuStart) / 17
        let dom = Harness.median(samples: 15, warmup: 2) { libxml2DOMParse(bytes) }
        Harness.report("metadata \(name) (\(bytes.count) bytes, \(entityTypes) entity types): model built",
                       value: model / 1e6, unit: "ms", baseline: ("xmlTextReader read-every-node loop", readerLoop / 1e6),
                       budget: "<= 2x")
        Harness.report("metadata \(name): model built, CPU time of both threads", value: modelCPU / 1e6, unit: "ms",
                       baseline: ("xmlTextReader loop's CPU time", readerLoopCPU / 1e6))
        Harness.report("metadata \(name): model built", value: model / 1e6, unit: "ms",
                       baseline: ("xmlReadMemory+xmlFreeDoc (for reference)", dom / 1e6))
    }
}

private let readerOptions = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
    | XML_PARSE_BIG_LINES.rawValue | XML_PARSE_NOCDATA.rawValue)

/// libxml2 alone: every node read, nothing done.
func libxml2ReaderLoop(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress,
              let reader = xmlReaderForMemory(base.assumingMemoryBound(to: CChar.self), Int32(buffer.count), nil, nil, readerOptions)
        else { return }
        while xmlTextReaderRead(reader) == 1 {}
        xmlFreeTextReader(reader)
    }
}

private func libxml2DOMParse(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { buffer in
        guard let base = buffer.baseAddress,
              let document = xmlReadMemory(base.assumingMemoryBound(to: CChar.self), Int32(buffer.count), nil, nil, readerOptions)
        else { return }
        xmlFreeDoc(document)
    }
}

/// A fixture file: `$OOD_FIXTURES/path`, else `../shared/fixtures/path` from the current directory.
func benchmarkFixture(_ path: String) -> [UInt8]? {
    let root = getenv("OOD_FIXTURES").map { String(cString: $0) } ?? "../shared/fixtures"
    guard let handle = fopen(root + "/" + path, "rb") else { return nil }
    defer { fclose(handle) }
    var result: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, handle) }
        if count == 0 { break }
        result.append(contentsOf: chunk[0..<count])
    }
    return result
}
