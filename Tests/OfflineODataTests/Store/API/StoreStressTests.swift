import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) @testable import OfflineOData

/// Acceptance 3 of the store API: 8 threads issue 10,000 mixed reads and writes while two full
/// downloads and an upload run, with callbacks that call back into the store. `make tsan` builds and runs
/// this suite with the thread sanitizer; `make test` runs it plainly as well.
@Suite(.serialized) struct StoreStressTests {
    static let threads = 8
    static let perThread = 1_250

    @Test func eightThreadsOfReadsAndWritesBesideADownloadAndAnUpload() async throws {
        let backend = try TestBackend.start(.v4, pageSize: 50)
        defer { backend.stop() }
        let folder = TemporaryFolder()
        var options = ODataStore.Options(path: folder.file("stress.store"), serviceRoot: backend.serviceRoot)
        options.definingRequests = [FlightSample.usAgencies, DefiningRequest(name: "Bookings", url: "BookingCollection")]
        options.changeEventInterval = 0.05
        let store = ODataStore.open(options)
        defer { store.close() }
        let recorder = EventRecorder()
        store.subscribe(recorder.record)
        let bookings = try entityCount(await store.get("BookingCollection"))
        #expect(bookings > 0)
        let downloadedAgency = try #require(try JSONValue.parse(await store.get("TravelagencyCollection?$top=1&$orderby=agencynum").body)["value"]?[0]?["agencynum"]?.stringValue)

        // Downloads (full refreshes, so every booking is written again) and an upload, beside the threads.
        let downloads = CompletionCounter()
        // The upload's completion, counted: a waiter wakes at it (no event need follow it).
        let uploads = CompletionCounter()
        let stopSync = Atomic<Bool>(false)
        @Sendable func downloadAgain() {
            store.start(.download(DownloadOptions(full: true))) { result in
                downloads.add(result.isSuccess)
                if downloads.total < 2 && !stopSync.load(ordering: .relaxed) { downloadAgain() }
            }
        }
        downloadAgain()
        let uploadHandle = Protected<RequestHandle?>(nil)

        let failures = Protected<[String]>([])
        let completions = CompletionCounter()
        let busyAnswers = Atomic<Int>(0)
        let creates = Atomic<Int>(0)
        let issuedAsync = Atomic<Int>(0)
        issueConcurrently(threads: Self.threads, each: Self.perThread) { index in
            let thread = index / Self.perThread
            let step = index % Self.perThread
            if thread == 0 && step == Self.perThread / 4 {
                // The upload starts once there is a queue, and runs beside the rest.
                uploadHandle.withLock { $0 = store.start(.upload()) { result in uploads.add(result.isSuccess) } }
            }
            let request: ODataRequest
            switch step % 5 {
            case 0, 1:
                let key = "T\(thread)" + format6(step)
                request = ODataRequest(method: "POST", url: "TravelagencyCollection", body: agencyBody(key, city: "Stress"))
                creates.add(1, ordering: .relaxed)
            case 2:
                request = ODataRequest(url: "BookingCollection/$count")
            case 3:
                request = ODataRequest(url: "TravelagencyCollection?$filter=country eq 'US' and city ne 'Beijing'&$top=20&$orderby=name")
            default:
                request = ODataRequest(url: "TravelagencyCollection('\(downloadedAgency)')")
            }
            let check: @Sendable (Result<StoreResponse, ODataError>) -> Void = { result in
                switch result {
                case .success(let response):
                    // A reader never sees half a download: the bookings are all there, every time.
                    if request.url == "BookingCollection/$count", response.text != String(bookings) {
                        failures.withLock { $0.append("count \(response.text) during a download, not \(bookings)") }
                    }
                case .failure(let error):
                    failures.withLock { $0.append("\(request.method) \(request.url): \(error)") }
                }
            }
            if thread % 2 == 0 {
                // Blocking calls from the application's threads.
                do throws(ODataError) {
                    check(.success(try store.executeAndWait(request)))
                } catch {
                    check(.failure(error))
                }
                completions.add(true)
            } else {
                // Completion closures; every 50th calls back into the store from inside.
                issuedAsync.add(1, ordering: .relaxed)
                store.start(.request(request)) { result in
                    check(result)
                    if step % 50 == 0 {
                        do throws(ODataError) {
                            _ = try store.executeAndWait(ODataRequest(url: "TravelagencyCollection/$count"))
                        } catch {
                            if error.code == .busy { busyAnswers.add(1, ordering: .relaxed) }
                        }
                        store.start(.request(ODataRequest(url: "TravelagencyCollection/$count"))) { check($0) }
                    }
                    completions.add(true)
                }
            }
        }
        #expect(completions.wait(for: Self.threads * Self.perThread, seconds: 600))
        stopSync.store(true, ordering: .relaxed)
        // Stop the upload if it still runs: a stopped upload keeps the rest queued.
        uploadHandle.withLock { $0 }?.cancel()
        #expect(uploads.wait(for: 1, seconds: 300))
        // Its completion came, so its progress events were posted: wait until they are delivered.
        #expect(eventsDelivered(by: store))
        // The last download finishes; then nothing else runs.
        let finalStatus = try await store.perform(.status)

        let problems = failures.withLock { $0 }
        #expect(problems.isEmpty, "\(problems.count) failures, first: \(problems.prefix(3))")
        #expect(completions.total == Self.threads * Self.perThread)
        #expect(busyAnswers.load(ordering: .relaxed) == Self.threads / 2 * (Self.perThread / 50))
        #expect(downloads.successes >= 1)

        // Final state: every create is either still queued or was sent; none refused; the
        // store's own tables hold every create, and the file is intact.
        let sent = recorder.all.compactMap { if case .uploadProgress(let progress) = $0 { progress.sent } else { nil } }.max() ?? 0
        let archived = recorder.all.compactMap { if case .uploadProgress(let progress) = $0 { progress.archived } else { nil } }.max() ?? 0
        #expect(archived == 0)
        #expect(finalStatus.archivedRequests == 0)
        #expect(finalStatus.queuedRequests + sent == creates.load(ordering: .relaxed))
        let local = try await store.get("TravelagencyCollection/$count?$filter=city eq 'Stress'")
        #expect(local.text == String(creates.load(ordering: .relaxed)))
        let onService = try backend.get("TravelagencyCollection/$count?$filter=city eq 'Stress'")
        #expect(String(decoding: onService.body, as: UTF8.self).trimmingSpaces() == String(sent))
        print("stress: \(completions.total) requests from \(Self.threads) threads, \(creates.load(ordering: .relaxed)) creates "
              + "(\(sent) uploaded, \(finalStatus.queuedRequests) still queued), \(downloads.total) full downloads, "
              + "\(busyAnswers.load(ordering: .relaxed)) busy answers to blocking calls from callbacks, "
              + "\(recorder.changeEvents.count) change events")
        store.close()
        let reopened = try LocalStore.open(path: folder.file("stress.store"))
        defer { reopened.close() }
        let integrity = try reopened.file.withConnection { db throws(ODataError) in try db.scalarText("PRAGMA integrity_check") }
        #expect(integrity == "ok")
    }
}

/// Counts completions from many threads.
final class CompletionCounter: @unchecked Sendable {
    /// Guards the counts and wakes a waiter at each completion.
    private let state = ConditionLock()
    private var counts: (total: Int, successes: Int) = (0, 0)

    func add(_ success: Bool) {
        state.withLock {
            counts.total += 1
            if success { counts.successes += 1 }
            state.broadcast()
        }
    }

    var total: Int { state.withLock { counts.total } }
    var successes: Int { state.withLock { counts.successes } }

    /// Returns as soon as `count` completions were added (false when `seconds` passed first).
    func wait(for count: Int, seconds: Double) -> Bool {
        let deadline = monotonicSeconds() + seconds
        return state.withLock {
            while counts.total < count && monotonicSeconds() < deadline { state.wait(until: deadline) }
            return counts.total >= count
        }
    }
}

extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
}

/// A 6-digit number.
func format6(_ number: Int) -> String {
    let text = String(number)
    return String(repeating: "0", count: max(0, 6 - text.count)) + text
}
