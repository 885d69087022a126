/// Server-driven paging of online reads: a read of a collection follows the service's next links
/// and answers the whole collection, or answers one page with its next link for the caller to
/// follow (``ODataRequest/followsNextLinks``).
///
/// Every next link is followed only on the service's origin, as the downloader follows them
/// (``ServiceURL/checkSameOrigin(_:as:what:)``), so the credentials, headers and cookies of the
/// read never leave it; a next link to a page the read already asked for is refused (it would
/// never end). ``HTTPOptions/maximumPages`` bounds the pages and ``HTTPOptions/maximumResponseSize``
/// the bytes of all pages together: the joined answer is one answer, held in memory whole.
extension ServiceClient {
    /// The answer to the GET `request`, whose first page the service answered with `first`; `top`
    /// is the read's `$top` as parsed (``ResolvedRequest/top``).
    ///
    /// - Parameter followsNextLinks: true to gather every page into one collection; false to answer
    ///   the first page as it came, its next link (absolute) in ``StoreResponse/nextLink``.
    func pagedAnswer(to request: HTTPRequest, top: Int?, first: HTTPResponse, followsNextLinks: Bool,
                     cancellation: HTTPCancellation?) throws(ODataError) -> StoreResponse {
        let contentType = first.header("Content-Type") ?? ""
        let asItCame = StoreResponse(status: first.status, contentType: contentType, body: first.body, headers: first.headers)
        // Only a JSON collection has pages; a body that is not one is the caller's as it came.
        guard first.status == 200, asciiLowercased(contentType).contains("json"),
              let page = try? CollectionPage.read(first.body, dialect: dialect) else { return asItCame }
        guard followsNextLinks else {
            var onePage = asItCame
            onePage.nextLink = page.nextLink.map { ServiceURL.resolve($0, against: serviceRoot) }
            return onePage
        }
        let isOverTop = top.map { page.entities.count > $0 } ?? false
        guard page.nextLink != nil || isOverTop else { return asItCame }
        var joined = JoinedCollection(first: page, top: top)
        var followed: Set<LinkKey> = [LinkKey(request.url)]
        var link = page.nextLink
        var pages = 1
        let limits = transport.currentOptions
        let read = "GET \(redactedURL(request.url))"
        while let next = link, !joined.hasEnough {
            guard pages < limits.maximumPages else {
                throw ODataError(.network, "\(read): the service sent more than \(limits.maximumPages) pages, the limit "
                                 + "(maximum pages); raise it, or read one page at a time")
            }
            let nextURL = ServiceURL.resolve(next, against: serviceRoot)
            let what = "the next link on page \(pages) of \(read)"
            try ServiceURL.checkSameOrigin(nextURL, as: serviceRoot, what: what)
            guard followed.insert(LinkKey(nextURL)).inserted else {
                throw ODataError(.network, "\(what) '\(redactedURL(nextURL))' repeats a page this read already asked for: "
                                 + "refused (it would never end)")
            }
            let response = try transport.send(HTTPRequest(method: RequestMethod.get.rawValue, url: nextURL, headers: request.headers),
                                              cancellation: cancellation)
            guard (200..<300).contains(response.status) else {
                throw transport.serviceError(response, request: "GET \(redactedURL(nextURL)) (page \(pages + 1) of \(read))")
            }
            pages += 1
            guard joined.byteCount + response.body.count <= limits.maximumResponseSize else {
                throw ODataError(.network, "\(read): its \(pages) pages are larger than \(limits.maximumResponseSize) bytes "
                                 + "together, the limit (maximum response size) of one answer; raise it, or read one page "
                                 + "at a time")
            }
            let nextPage: CollectionPage?
            do {
                nextPage = try CollectionPage.read(response.body, dialect: dialect)
            } catch {
                var error = error
                error.message = "GET \(redactedURL(nextURL)) (page \(pages) of \(read)): \(error.message)"
                throw error
            }
            guard let nextPage else {
                throw ODataError(.http, "GET \(redactedURL(nextURL)) (page \(pages) of \(read)): the service's answer "
                                 + "is not a page of the collection")
            }
            joined.append(nextPage)
            link = nextPage.nextLink
        }
        // The first page's headers, less those that describe its body alone: the joined body is another.
        let bodyHeaders: Set<String> = ["content-length", "content-encoding", "content-md5"]
        return StoreResponse(status: first.status, contentType: contentType, body: joined.serialized(),
                             headers: first.headers.filter { !bodyHeaders.contains(asciiLowercased($0.name)) })
    }
}
