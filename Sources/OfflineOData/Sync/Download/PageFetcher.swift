/// Fetches a download's pages on a thread of its own, so the next page travels and is rendered by
/// the service while the current one is stored: the steps overlap instead of taking turns.
///
/// The download asks for a page with ``fetch(_:)`` and waits for it with ``PendingPage/wait()``.
/// A quick scan of each page's bytes (``NextLinkScanner``) guesses its next link, so the
/// download asks for the following page before it stores this one. At most one page is fetched
/// ahead, and only after a page of at most ``readAheadLimit`` bytes: a download's memory is then
/// its largest page's bytes plus at most that limit. ``close()`` cancels what is still travelling
/// and ends the thread.
final class PageFetcher {
    /// The largest page after which the next one is fetched while it is stored. Small pages gain
    /// most from the overlap (the service's time per page weighs most there); past this size a
    /// second page in memory would cost more than the overlap gains.
    static let readAheadLimit = 4 << 20
    /// The most bytes of a refused page's body read for the service's message.
    static let refusalBodyLimit = 1 << 20

    private let transport: HTTPTransport
    private let headers: [HTTPHeader]
    private let cancellation: HTTPCancellation?
    /// The transport's answer limit: a page's buffer is mapped at this size once it outgrows small
    /// ones, and filled without copies (``JSONInputBuilder``).
    private let maximumPageSize: Int
    private let worker: WorkerPool
    private var outstanding: [PendingPage] = []

    init(transport: HTTPTransport, headers: [HTTPHeader], cancellation: HTTPCancellation?) {
        self.transport = transport
        self.headers = headers
        self.cancellation = cancellation
        maximumPageSize = transport.currentOptions.maximumResponseSize
        worker = WorkerPool(name: "download fetch", threadCount: 1, owner: StoreThreadMarker.Owner(transport))
    }

    /// Starts fetching `url` in the background.
    func fetch(_ url: String) -> PendingPage {
        outstanding.removeAll { $0.isSettled }
        let page = PendingPage(url: url, cancellation: HTTPCancellation(following: cancellation))
        outstanding.append(page)
        let request = HTTPRequest(url: url, headers: headers)
        let transport = transport
        let maximumPageSize = maximumPageSize
        let submitted = worker.submit {
            page.settle(Result { () throws(ODataError) -> FetchedPage in
                // The body goes straight into the buffer its reader reads: a page is held once.
                let gathered = JSONInputBuilder(maximumSize: maximumPageSize)
                var response = try transport.send(request, cancellation: page.cancellation, into: gathered)
                guard (200..<300).contains(response.status) else {
                    // A refusal's body is the service's message, read as such: its first MiB, as
                    // an error keeps at most a thousand characters of it (a body of the answer
                    // limit's size would otherwise be copied and parsed whole, several times over).
                    response.body = gathered.bytes(upTo: PageFetcher.refusalBodyLimit)
                    return FetchedPage(response: response, body: nil, guessedNextLink: nil)
                }
                let body = gathered.finish()
                return FetchedPage(response: response, body: body, guessedNextLink: NextLinkScanner.nextLink(in: body.buffer))
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

/// A fetched page: the answer's status and headers, and for a 2xx answer its body, ready for
/// reading, with the next link a scan of it guessed. A refusal's body is in the response.
struct FetchedPage {
    let response: HTTPResponse
    let body: JSONInput?
    let guessedNextLink: String?
}

/// A page asked of ``PageFetcher``: settled once by the fetch thread, waited for by the download.
final class PendingPage: @unchecked Sendable {
    let url: String
    let cancellation: HTTPCancellation
    private let state = ConditionLock()
    /// Guarded by `state`: the fetch's outcome until ``wait()`` takes it, the page or the error.
    /// Two optionals, not an optional `Result`: the optimised test of that one's case reads
    /// payload bytes the smaller case never wrote, which valgrind's memcheck reports as a use of
    /// uninitialised memory (the outcome does not depend on them, but a C user's
    /// `--error-exitcode` fails); a plain optional's test reads only bytes its value wrote.
    private var page: FetchedPage?
    private var failure: ODataError?
    /// Guarded by `state`: ``wait()`` has taken the outcome.
    private var isTaken = false

    init(url: String, cancellation: HTTPCancellation) {
        self.url = url
        self.cancellation = cancellation
    }

    var isSettled: Bool { state.withLock { page != nil || failure != nil || isTaken } }

    func settle(_ result: Result<FetchedPage, ODataError>) {
        state.withLock {
            switch result {
            case .success(let fetched): page = fetched
            case .failure(let error): failure = error
            }
            state.broadcast()
        }
    }

    /// The page, once fetched; throws what the fetch threw. Called once: the page is handed over.
    func wait() throws(ODataError) -> FetchedPage {
        let result = state.withLock { () -> Result<FetchedPage, ODataError> in
            while true {
                if let error = failure.take() {
                    isTaken = true
                    return .failure(error)
                }
                if let fetched = page.take() {
                    isTaken = true
                    return .success(fetched)
                }
                if isTaken { return .failure(ODataError(.misuse, "a fetched page was waited for twice")) }
                state.wait()
            }
        }
        return try result.get()
    }
}

/// A page's body arrives straight into its reader's buffer, made as large as the answer
/// announces at once.
extension JSONInputBuilder: HTTPBodySink {
    func expect(length: Int) { reserve(length) }
    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool { append(chunk) }
}
