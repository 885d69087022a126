/// Fetches a download's pages on a thread of its own, so the next page travels (and the service
/// renders it) while the current one is stored: the two overlap instead of taking turns.
///
/// The download asks for a page with ``fetch(_:)`` and waits for it with ``PendingPage/wait()``.
/// Each fetched page is scanned for its next link (``NextLinkScanner``), which the download uses
/// to ask for the following page before it stores this one. At most one page is fetched ahead,
/// so memory stays at two pages. ``close()`` cancels what is still travelling and ends the thread.
final class PageFetcher {
    private let transport: HTTPTransport
    private let headers: [HTTPHeader]
    private let cancellation: HTTPCancellation?
    private let worker: WorkerPool
    private var outstanding: [PendingPage] = []

    init(transport: HTTPTransport, headers: [HTTPHeader], cancellation: HTTPCancellation?) {
        self.transport = transport
        self.headers = headers
        self.cancellation = cancellation
        worker = WorkerPool(name: "download fetch", threadCount: 1, owner: StoreThreadMarker.Owner(transport))
    }

    /// Starts fetching `url` in the background.
    func fetch(_ url: String) -> PendingPage {
        outstanding.removeAll { $0.isSettled }
        let page = PendingPage(url: url, cancellation: HTTPCancellation(following: cancellation))
        outstanding.append(page)
        let request = HTTPRequest(url: url, headers: headers)
        let transport = transport
        let submitted = worker.submit {
            page.settle(Result { () throws(ODataError) -> FetchedPage in
                let response = try transport.send(request, cancellation: page.cancellation)
                let link = (200..<300).contains(response.status) ? NextLinkScanner.nextLink(in: response.body) : nil
                return FetchedPage(response: response, scannedNextLink: link)
            })
        }
        if !submitted { page.settle(.failure(ODataError(.aborted, "the download's fetch thread has stopped"))) }
        return page
    }

    /// Cancels the pages still travelling and waits for the thread to end.
    func close() {
        for page in outstanding { page.cancellation.cancel() }
        worker.shutDown()
    }
}

/// A fetched page, with the next link its quick scan found.
struct FetchedPage {
    let response: HTTPResponse
    let scannedNextLink: String?
}

/// A page asked of ``PageFetcher``: settled once by the fetch thread, waited for by the download.
final class PendingPage: @unchecked Sendable {
    let url: String
    let cancellation: HTTPCancellation
    private let state = ConditionLock()
    /// Guarded by `state`.
    private var outcome: Result<FetchedPage, ODataError>?

    init(url: String, cancellation: HTTPCancellation) {
        self.url = url
        self.cancellation = cancellation
    }

    var isSettled: Bool { state.withLock { outcome != nil } }

    func settle(_ result: Result<FetchedPage, ODataError>) {
        state.withLock {
            outcome = result
            state.broadcast()
        }
    }

    /// The page, once fetched; throws what the fetch threw.
    func wait() throws(ODataError) -> FetchedPage {
        let result = state.withLock { () -> Result<FetchedPage, ODataError> in
            while true {
                if let outcome { return outcome }
                state.wait()
            }
        }
        return try result.get()
    }
}
