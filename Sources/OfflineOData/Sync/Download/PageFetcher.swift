/// Fetches a download's pages on a thread of its own and reads them there (the sink's
/// ``PageSink/pageReader``), so the next page travels, is rendered by the service and is read
/// while the current one is stored: the steps overlap instead of taking turns.
///
/// The download asks for a page with ``fetch(_:)`` and waits for it with ``PendingPage/wait()``.
/// The next link of each read page (``PageSink/pageNextLink``) lets the download ask for the
/// following page before it stores this one. At most one page is fetched ahead,
/// so memory stays at two pages. ``close()`` cancels what is still travelling and ends the thread.
final class PageFetcher<Page> {
    private let transport: HTTPTransport
    private let headers: [HTTPHeader]
    private let cancellation: HTTPCancellation?
    private let read: @Sendable ([UInt8]) throws(ODataError) -> Page
    private let recycle: @Sendable (inout Page) -> Void
    private let nextLink: @Sendable (Page) -> String?
    private let worker: WorkerPool
    private var outstanding: [PendingPage<Page>] = []

    init(transport: HTTPTransport, headers: [HTTPHeader], cancellation: HTTPCancellation?,
         read: @escaping @Sendable ([UInt8]) throws(ODataError) -> Page,
         recycle: @escaping @Sendable (inout Page) -> Void, nextLink: @escaping @Sendable (Page) -> String?) {
        self.transport = transport
        self.headers = headers
        self.cancellation = cancellation
        self.read = read
        self.recycle = recycle
        self.nextLink = nextLink
        worker = WorkerPool(name: "download fetch", threadCount: 1, owner: StoreThreadMarker.Owner(transport))
    }

    /// Starts fetching (and reading) `url` in the background.
    func fetch(_ url: String) -> PendingPage<Page> {
        outstanding.removeAll { $0.isSettled }
        let page = PendingPage<Page>(url: url, cancellation: HTTPCancellation(following: cancellation))
        outstanding.append(page)
        let request = HTTPRequest(url: url, headers: headers)
        let transport = transport
        let read = read
        let nextLink = nextLink
        let submitted = worker.submit {
            page.settle(Result { () throws(ODataError) -> FetchedPage<Page> in
                var response = try transport.send(request, cancellation: page.cancellation)
                guard (200..<300).contains(response.status) else {
                    let unread = ODataError(.http, "the service answered \(response.status): the page was not read")
                    return FetchedPage(response: response, nextLink: nil, page: .failure(unread))
                }
                let read = Result { () throws(ODataError) -> Page in try read(response.body) }
                guard case .success(let page) = read else { return FetchedPage(response: response, nextLink: nil, page: read) }
                // What the reader made of the body is all the download needs of it: dropping the
                // bytes here keeps one copy of each page in memory, not two.
                response.body = []
                return FetchedPage(response: response, nextLink: nextLink(page), page: read)
            })
        }
        if !submitted { page.settle(.failure(ODataError(.aborted, "the download's fetch thread has stopped"))) }
        return page
    }

    /// Hands a page the download is done with back to the fetch thread, which recycles it there
    /// (the reader reuses its buffers) or frees it: freeing a read page costs the download's
    /// thread a few percent of writing it, and reading the next one allocates less.
    func release(_ page: consuming FetchedPage<Page>) {
        let done = ReleasedPage(page)
        let recycle = recycle
        worker.submit { done.recycle(with: recycle) }
    }

    /// Cancels the pages still travelling and waits for the thread to end.
    func close() {
        for page in outstanding { page.cancellation.cancel() }
        worker.shutDown()
    }
}

/// A fetched page, with what the sink's reader made of it and the next link the reading found
/// (read only when the service answered 2xx).
struct FetchedPage<Page> {
    let response: HTTPResponse
    /// The next link as the page's reading found it (nil for a page that could not be read).
    let nextLink: String?
    var page: Result<Page, ODataError>
}

/// A page handed back to the fetch thread, recycled (or freed) there by the job that holds it.
private final class ReleasedPage<Page>: @unchecked Sendable {
    private var fetched: FetchedPage<Page>?

    init(_ page: consuming FetchedPage<Page>) { fetched = page }

    func recycle(with recycle: (inout Page) -> Void) {
        // Moved out, so the recycler holds the page's only reference and reuses its buffers in place.
        guard var taken = fetched.take() else { return }
        let result = taken.page
        taken.page = .failure(ODataError(.aborted, "recycled"))
        switch consume result {
        case .success(var page): recycle(&page)
        case .failure: break
        }
    }
}

/// A page asked of ``PageFetcher``: settled once by the fetch thread, waited for by the download.
final class PendingPage<Page>: @unchecked Sendable {
    let url: String
    let cancellation: HTTPCancellation
    private let state = ConditionLock()
    /// Guarded by `state`: the fetch's outcome until ``wait()`` takes it.
    private var outcome: Result<FetchedPage<Page>, ODataError>?
    /// Guarded by `state`: ``wait()`` has taken the outcome.
    private var isTaken = false

    init(url: String, cancellation: HTTPCancellation) {
        self.url = url
        self.cancellation = cancellation
    }

    var isSettled: Bool { state.withLock { outcome != nil || isTaken } }

    func settle(_ result: Result<FetchedPage<Page>, ODataError>) {
        state.withLock {
            outcome = result
            state.broadcast()
        }
    }

    /// The page, once fetched; throws what the fetch threw. Called once: the page is handed
    /// over, so the caller decides which thread frees it (``PageFetcher/release(_:)``).
    func wait() throws(ODataError) -> FetchedPage<Page> {
        let result = state.withLock { () -> Result<FetchedPage<Page>, ODataError> in
            while true {
                if let taken = outcome.take() {
                    isTaken = true
                    return taken
                }
                if isTaken { return .failure(ODataError(.misuse, "a fetched page was waited for twice")) }
                state.wait()
            }
        }
        return try result.get()
    }
}
