#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) import OfflineOData

/// `service-check SERVICE_ROOT [ROUNDS]`: the cost of checking an unchanged service's `$metadata`
/// (``StoreOperation/checkService`` through the store API, what every download does first) against
/// the one request it sends, timed alone with the same HTTP stack: `GET $metadata` with
/// `If-None-Match` when the service gave an ETag (a 304), else the whole document. Interleaved
/// rounds, their order turning; medians; the ratio is the figure (issue 34's budget: 1.2).
func serviceCheckBenchmark(_ arguments: [String]) throws {
    guard let root = arguments.first else { throw BenchmarkError("service-check needs SERVICE_ROOT [ROUNDS]") }
    let rounds = arguments.count > 1 ? Int(arguments[1]) ?? 200 : 200
    let folder = "/tmp/ood-service-check-\(getpid())"
    mkdir(folder, 0o700)
    let path = folder + "/check.store"
    defer {
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        rmdir(folder)
    }
    let store = ODataStore.open(ODataStore.Options(path: path, serviceRoot: root))
    defer { store.close() }
    let first = try store.performAndWait(.checkService)
    guard !first.changed else { throw BenchmarkError("the store's model differs from the service's: \(first.differences)") }

    let transport = try HTTPTransport()
    let url = (root.hasSuffix("/") ? root : root + "/") + "$metadata"
    let probe = try transport.send(HTTPRequest(method: "GET", url: url, headers: [HTTPHeader("Accept", "application/xml")]))
    var headers = [HTTPHeader("Accept", "application/xml")]
    if let etag = probe.header("ETag") { headers.append(HTTPHeader("If-None-Match", etag)) }
    let request = HTTPRequest(method: "GET", url: url, headers: headers)

    // The same check without the store API's dispatch (its sync lane and completion): a second
    // handle on the file, called on this thread.
    let direct = try LocalStore.open(path: path)
    defer { direct.close() }
    var requestTimes: [Double] = []
    var checkTimes: [Double] = []
    var directTimes: [Double] = []
    var evidence = ""
    for _ in 0..<5 {
        _ = try transport.send(request)
        _ = try store.performAndWait(.checkService)
        _ = try direct.checkServiceModel(cancellation: nil)
    }
    // Each round times the three once, in an order that turns with the round, so that none
    // always follows the same one (the service's threads, the caches).
    for round in 0..<rounds {
        for step in 0..<3 {
            let start = Harness.now()
            switch (round + step) % 3 {
            case 0:
                let answer = try transport.send(request)
                requestTimes.append(Double(Harness.now() - start))
                guard answer.status == 200 || answer.status == 304 else { throw BenchmarkError("GET $metadata answered \(answer.status)") }
            case 1:
                let check = try store.performAndWait(.checkService)
                checkTimes.append(Double(Harness.now() - start))
                guard !check.changed else { throw BenchmarkError("the service's model changed during the benchmark") }
                evidence = check.evidence.rawValue
            default:
                _ = try direct.checkServiceModel(cancellation: nil)
                directTimes.append(Double(Harness.now() - start))
            }
        }
    }
    func median(_ times: [Double]) -> Double { times.sorted()[times.count / 2] / 1000 }
    let kind = probe.header("ETag") != nil ? "conditional request (304)" : "$metadata read (\(probe.body.count) bytes)"
    Harness.report("service-check \(evidence) through the store API, \(rounds) rounds", value: median(checkTimes), unit: "µs",
                   baseline: ("one \(kind)", median(requestTimes)), budget: "ratio <= 1.2")
    Harness.report("service-check \(evidence) on the store itself (no dispatch)", value: median(directTimes), unit: "µs",
                   baseline: ("one \(kind)", median(requestTimes)), budget: "ratio <= 1.2")
}
