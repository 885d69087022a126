/// Downloads one defining request, page after page, over HTTP, handing each page to a sink.
///
/// It follows server-driven paging to the end, asks for changes only when it has a delta link
/// from the last download, and keeps the newest delta link the service offers on any page
/// (odatapy puts it on the first page, the specification on the last). It knows the wire forms of
/// V2 and V4 services (headers, error bodies) but not the store: the sink decides what a page
/// becomes (``StagedPageSink`` keeps it for a resumable download, each page once its links passed
/// the checks). Pages are fetched on a thread of their own, one page ahead of the one being
/// stored (``PageFetcher``).
struct Downloader {
    let transport: HTTPTransport
    let serviceRoot: String
    let dialect: Dialect
    /// Asked of V4 services with `Prefer: odata.maxpagesize`; nil leaves the page size to the service.
    var preferredPageSize: Int?
    /// A guard against services whose next links never end; nil takes the transport's
    /// ``HTTPOptions/maximumPages``.
    var maximumPages: Int?

    /// Downloads `request` (or the changes since its `deltaLink`) into `sink`; with `resuming`, from
    /// its next link on (the pages before it were stored by an interrupted download).
    ///
    /// - Parameters:
    ///   - progress: called after every page; returning false stops the download (``ODataError/Code/aborted``).
    /// - Throws: ``ODataError/Code/network`` and ``ODataError/Code/http`` for transport and service
    ///   failures (with the service's own error message), ``ODataError/Code/aborted`` when stopped,
    ///   and whatever the sink throws for a page it cannot take.
    func download<Sink: PageSink>(_ request: DefiningRequest, useDelta: Bool, resuming: DownloadResumePoint? = nil,
                  into sink: inout Sink, cancellation: HTTPCancellation? = nil,
                  progress: (DownloadProgress) -> Bool = { _ in true }) throws(ODataError) -> DownloadOutcome {
        let isDelta = useDelta && request.deltaLink != nil
        let maximumPages = maximumPages ?? transport.currentOptions.maximumPages
        var url = ServiceURL.resolve(resuming?.nextLink ?? (isDelta ? request.deltaLink : nil) ?? request.url, against: serviceRoot)
        // A delta link or a kept next link came from the service: followed only on its origin.
        if resuming?.nextLink != nil {
            try ServiceURL.checkSameOrigin(url, as: serviceRoot, what: "the next link '\(request.name)' resumes at")
        } else if isDelta {
            try ServiceURL.checkSameOrigin(url, as: serviceRoot, what: "the delta link of '\(request.name)'")
        }
        // The pages asked for so far: a next link to one of them would loop forever.
        var followed: Set<LinkKey> = [LinkKey(url)]
        var pages = resuming?.pages ?? 0
        var entities = resuming?.entities ?? 0
        var deltaLink = resuming?.deltaLink
        // What the service sent and announced, for the progress and the store's statistics.
        var bytes = 0
        var expectedEntities: Int?
        let resumedAtPage = resuming.map { $0.pages + 1 }
        let fetcher = PageFetcher(transport: transport, headers: headers(), cancellation: cancellation)
        defer { fetcher.close() }
        var pending = fetcher.fetch(url)
        while true {
            let summary: PageSummary
            let ahead: PendingPage?
            let nextURL: String?
            do {
                // In a scope of its own: the page's bytes are freed at its end, before the page
                // after the next is asked for.
                let fetched = try pending.wait()
                guard let body = fetched.body else {
                    throw transport.serviceError(fetched.response, request: "GET \(redactedURL(url))")
                }
                bytes += body.count
                // Fetch the page after this one while this one is stored, unless this one is large:
                // then its bytes alone bound the download's memory (``PageFetcher/readAheadLimit``).
                // Only a link the download would follow: on the service's origin, not followed before.
                ahead = (body.count <= PageFetcher.readAheadLimit ? fetched.guessedNextLink : nil)
                    .map { ServiceURL.resolve($0, against: serviceRoot) }
                    .flatMap { link in
                        (try? ServiceURL.checkSameOrigin(link, as: serviceRoot, what: "the next link")) == nil
                            || followed.contains(LinkKey(link)) ? nil : link
                    }
                    .map { fetcher.fetch($0) }
                do {
                    summary = try sink.accept(page: body)
                } catch {
                    // Say which page could not be taken: the sink's message alone (a JSON syntax
                    // error at an offset, say) does not name the request.
                    var error = error
                    error.message = "GET \(redactedURL(url)) (page \(pages + 1) of '\(request.name)'): \(error.message)"
                    throw error
                }
                pages += 1
                entities += summary.entities
                expectedEntities = summary.count ?? expectedEntities
                if let link = summary.deltaLink {
                    try ServiceURL.checkSameOrigin(ServiceURL.resolve(link, against: serviceRoot), as: serviceRoot,
                                                   what: "the delta link on page \(pages) of '\(request.name)'")
                    deltaLink = link
                }
                if let next = summary.nextLink {
                    guard pages < maximumPages else {
                        throw ODataError(.network, "the service sent more than \(maximumPages) pages for '\(request.name)'")
                    }
                    let link = ServiceURL.resolve(next, against: serviceRoot)
                    try ServiceURL.checkSameOrigin(link, as: serviceRoot, what: "the next link on page \(pages) of '\(request.name)'")
                    guard followed.insert(LinkKey(link)).inserted else {
                        throw ODataError(.network, "the next link on page \(pages) of '\(request.name)' '\(redactedURL(link))' "
                                         + "repeats a page this download already asked for: refused (it would never end)")
                    }
                    nextURL = link
                } else {
                    nextURL = nil
                }
                // Only a page whose links passed is kept: a resumed download follows its next link.
                try sink.keep(page: body, summary: summary)
            }
            let report = DownloadProgress(definingRequest: request.name, pages: pages, entities: entities,
                                          expectedEntities: expectedEntities, isDelta: isDelta, bytes: bytes,
                                          resumedAtPage: resumedAtPage)
            guard progress(report) else {
                throw ODataError(.aborted, "the download of '\(request.name)' was stopped after \(pages) pages")
            }
            guard let nextURL else { break }
            url = nextURL
            // The page's own reading decides; a scan that guessed another link is not used.
            if let ahead, ahead.url == url {
                pending = ahead
            } else {
                ahead?.cancellation.cancel()
                pending = fetcher.fetch(url)
            }
        }
        return DownloadOutcome(definingRequest: request.name, pages: pages, entities: entities, isDelta: isDelta,
                               deltaLink: deltaLink, bytes: bytes, expectedEntities: expectedEntities, resumedAtPage: resumedAtPage,
                               fetchedPages: pages - (resuming?.pages ?? 0))
    }

    /// The request headers of every page: JSON, the protocol version, and for V4 the preferences.
    private func headers() -> [HTTPHeader] {
        switch dialect {
        case .v2:
            return ODataProtocolHeaders.json(for: .v2)
        case .v4:
            // Change tracking is asked for on every page: next links do not carry the preference.
            var preferences = ["odata.track-changes"]
            if let preferredPageSize { preferences.append("odata.maxpagesize=\(preferredPageSize)") }
            return ODataProtocolHeaders.json(for: .v4) + [HTTPHeader("Prefer", preferences.joined(separator: ","))]
        }
    }
}
