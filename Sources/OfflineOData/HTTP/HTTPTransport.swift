internal import CCurl
#if canImport(Glibc)
import Glibc
#endif

/// Sends HTTP requests to an OData service through libcurl.
///
/// One curl handle is kept for the transport's life, so connections, TLS sessions and the
/// cookies the service sets (SAP Gateway's session and CSRF cookies) are reused from request to
/// request. Requests on one transport are serialized; a download or an upload sends one request
/// at a time anyway. A request can be cancelled from any thread through its ``HTTPCancellation``.
///
/// Errors never contain credentials: user names, passwords and tokens travel in curl options,
/// never in URLs or messages, and a URL's user-info part is removed before it is quoted.
package final class HTTPTransport: @unchecked Sendable {
    private let lock = Lock()
    /// Guarded by `lock`.
    private var handle: UnsafeMutableRawPointer?
    private var options: HTTPOptions
    /// Holds the cookies the service sets, for the handle's life.
    ///
    /// Each transfer turns the cookie engine on with `CURLOPT_COOKIEFILE ""`, and the engine's file
    /// list is emptied again before the next `curl_easy_reset`: libcurl 7.88 loses that list at a
    /// reset (curl issue 10694, fixed in 8.0), a leak that valgrind reports. Emptying it would throw
    /// the cookies away, but not when they live in a share. Only this transport's handle uses the
    /// share (its requests are serialized), so it needs no locks.
    private let cookies: UnsafeMutableRawPointer
    /// The bytes of bodies sent and received over the transport's life; guarded by `lock`.
    private var trafficSoFar = HTTPTraffic()
    /// The sockets the handle's connections use, to acknowledge answers without delay; guarded by `lock`.
    private let acknowledgement = AnswerAcknowledgement()

    /// - Throws: ``ODataError/Code/misuse`` for options ``HTTPOptions/validate()`` refuses.
    package init(options: HTTPOptions = HTTPOptions()) throws(ODataError) {
        try options.validate()
        guard curlGlobalInitialization == CURLE_OK else {
            throw ODataError(.network, "libcurl could not be initialized")
        }
        guard let share = curl_share_init() else { throw ODataError(.network, "libcurl could not create a share handle") }
        guard ccurl_share_cookies(share) == CURLSHE_OK, let easy = curl_easy_init() else {
            curl_share_cleanup(share)
            throw ODataError(.network, "libcurl could not create a handle with a cookie engine")
        }
        cookies = share
        handle = easy
        self.options = options
    }

    deinit {
        // The easy handle first: it detaches from the share, which can then go.
        if let handle { curl_easy_cleanup(handle) }
        curl_share_cleanup(cookies)
    }

    /// The options in force.
    package var currentOptions: HTTPOptions { lock.withLock { options } }

    /// How many answers were acknowledged without the delayed-ACK wait (``AnswerAcknowledgement``).
    var answersAcknowledgedQuickly: Int { lock.withLock { acknowledgement.answersAcknowledged } }

    /// The bytes of request and answer bodies this transport has moved so far (see
    /// ``HTTPTraffic``); an operation's share is the difference between two readings.
    package var traffic: HTTPTraffic { lock.withLock { trafficSoFar } }

    /// Replaces the options (headers, cookies, credentials, timeouts) for the requests after this call.
    package func update(_ newOptions: HTTPOptions) {
        lock.withLock { options = newOptions }
    }

    /// Sends `request` and returns the service's answer, whatever its HTTP status.
    ///
    /// - Parameters:
    ///   - cancellation: cancels the request from another thread.
    ///   - onBody: if given, receives the body chunk by chunk as it arrives (and the response's
    ///     `body` stays empty); returning false stops the transfer with ``ODataError/Code/aborted``.
    /// - Throws: ``ODataError/Code/network`` when the service cannot be reached, the connection
    ///   breaks or a timeout passes; ``ODataError/Code/aborted`` when cancelled or stopped.
    package func send(
        _ request: HTTPRequest,
        cancellation: HTTPCancellation? = nil,
        onBody: ((UnsafeRawBufferPointer) -> Bool)? = nil
    ) throws(ODataError) -> HTTPResponse {
        try send(request, cancellation: cancellation, into: onBody.map(ClosureBodySink.init))
    }

    /// Sends `request`, its body going to `sink` as it arrives (the response's `body` stays
    /// empty then), with the length the answer announces told first.
    func send(_ request: HTTPRequest, cancellation: HTTPCancellation?, into sink: HTTPBodySink?) throws(ODataError) -> HTTPResponse {
        try lock.withLock { () throws(ODataError) -> HTTPResponse in
            guard let handle else { throw ODataError(.misuse, "the HTTP transport is closed") }
            try options.validate()
            // Redirects are followed here, not by libcurl, which would send the configured headers
            // and cookies to whatever host a `Location` names: only to the request's own origin.
            var current = request
            var redirects = 0
            while true {
                let response = try tracedPerform(current, on: handle, cancellation: cancellation, sink: sink)
                guard Self.redirectStatuses.contains(response.status), let location = response.header("Location") else {
                    return response
                }
                let target = ServiceURL.resolveReference(location, against: current.url)
                try ServiceURL.checkSameOrigin(target, as: request.url, what: "the redirect (\(response.status)) of \(request.method) \(redactedURL(request.url)) to")
                redirects += 1
                guard redirects <= Self.maximumRedirects else {
                    throw ODataError(.network, "\(request.method) \(redactedURL(request.url)): more than \(Self.maximumRedirects) redirects")
                }
                // 303, and 301 or 302 after a POST, continue with a GET (as browsers and libcurl do).
                if response.status == 303 || (current.method == "POST" && (response.status == 301 || response.status == 302)) {
                    if current.method != "HEAD" { current.method = "GET" }
                    current.body = nil
                    current.headers.removeAll { asciiLowercased($0.name) == "content-type" }
                }
                current.url = target
            }
        }
    }

    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]
    static let maximumRedirects = 5

    // MARK: - One transfer

    /// ``perform(_:on:cancellation:sink:)``, told to the options' trace when there is one.
    private func tracedPerform(_ request: HTTPRequest, on easy: UnsafeMutableRawPointer, cancellation: HTTPCancellation?,
                               sink: HTTPBodySink?) throws(ODataError) -> HTTPResponse {
        guard let trace = options.trace else { return try perform(request, on: easy, cancellation: cancellation, sink: sink) }
        // Every header named as a credential is masked here, the request's own too (a CSRF token).
        let headers = trace.showsHeaders ? maskedHeaders(for: request).map { entry in
            CredentialHeaders.isCredential(entry.header.name) && !entry.masked
                ? HTTPHeader(entry.header.name, CredentialHeaders.mask) : entry.header
        } : []
        trace.request(request, headers: headers)
        let start = HTTPTrace.now()
        let before = trafficSoFar
        do {
            let response = try perform(request, on: easy, cancellation: cancellation, sink: sink)
            trace.answer(response, received: trafficSoFar.since(before).received, since: start)
            return response
        } catch {
            trace.failure(error, since: start)
            throw error
        }
    }

    /// One request and its answer on `easy`, with no redirect followed.
    private func perform(
        _ request: HTTPRequest,
        on easy: UnsafeMutableRawPointer,
        cancellation: HTTPCancellation?,
        sink: HTTPBodySink?
    ) throws(ODataError) -> HTTPResponse {
        // Start from defaults; the connection cache, TLS sessions and cookies survive a reset.
        _ = ccurl_clear_cookie_files(easy)
        curl_easy_reset(easy)
        let transfer = Transfer(sink: sink, cancellation: cancellation, maximumBodySize: options.maximumResponseSize,
                                isChange: Self.isChange(request), acknowledgement: acknowledgement)
        let context = Unmanaged.passRetained(transfer)
        defer { context.release() }
        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)

        try configure(easy, for: request)
        try appendHeaders(for: request, to: &headerList)
        _ = ccurl_setopt_slist(easy, CURLOPT_HTTPHEADER, headerList)
        installCallbacks(on: easy, reaching: context)
        let watchesConnection = Self.refusesResend && installConnectionCallbacks(on: easy, reaching: context)
        if transfer.isChange { configureChange(on: easy, guarded: watchesConnection) }

        let code: CURLcode = errorBuffer.withUnsafeMutableBufferPointer { buffer in
            _ = ccurl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, buffer.baseAddress)
            return sendBody(of: request, on: easy)
        }
        _ = ccurl_setopt_pointer(easy, CURLOPT_ERRORBUFFER, nil)
        // Counted also for a transfer that failed part-way: what travelled, travelled.
        trafficSoFar.add(HTTPTraffic.ofLastTransfer(on: easy))
        // The connection kept for the next request, which is likely to go on it.
        acknowledgement.remember(ccurl_last_socket(easy))

        guard code == CURLE_OK else {
            let detail = errorBuffer.withUnsafeBufferPointer { buffer -> String in
                guard let base = buffer.baseAddress, base.pointee != 0 else {
                    return String(cString: curl_easy_strerror(code))
                }
                return String(cString: base)
            }
            throw transferError(code, detail: detail, request: request, transfer: transfer)
        }
        var status = 0
        _ = ccurl_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
        return HTTPResponse(status: status, headers: transfer.headers, body: transfer.body)
    }

    /// The request's headers, each checked, onto `list` (which the caller frees, also when this
    /// throws part-way), and an empty `Expect:` so that no 100-continue round trip precedes a body.
    private func appendHeaders(for request: HTTPRequest, to list: inout UnsafeMutablePointer<curl_slist>?) throws(ODataError) {
        for header in requestHeaders(for: request) {
            // One check for every header that reaches libcurl, the configured ones and those the
            // engine builds from what a service sent (an ETag in If-Match): a CR or LF would start
            // a header, or a request, of the service's choosing.
            try HTTPOptions.checkHeader(name: header.name, value: header.value)
            list = curl_slist_append(list, "\(header.name): \(header.value)")
        }
        list = curl_slist_append(list, "Expect:")
    }

    /// curl's body, header and progress callbacks, each reaching the transfer through `context`
    /// (the progress callback is where a cancellation stops the transfer).
    private func installCallbacks(on easy: UnsafeMutableRawPointer, reaching context: Unmanaged<Transfer>) {
        _ = ccurl_setopt_pointer(easy, CURLOPT_WRITEDATA, context.toOpaque())
        _ = ccurl_setopt_callback(easy, CURLOPT_WRITEFUNCTION) { data, size, count, raw in
            guard let raw else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(raw).takeUnretainedValue()
            let length = size &* count
            return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
        }
        _ = ccurl_setopt_pointer(easy, CURLOPT_HEADERDATA, context.toOpaque())
        _ = ccurl_setopt_callback(easy, CURLOPT_HEADERFUNCTION) { data, size, count, raw in
            guard let raw else { return 0 }
            let length = size &* count
            Unmanaged<Transfer>.fromOpaque(raw).takeUnretainedValue()
                .receiveHeaderLine(UnsafeRawBufferPointer(start: data, count: length))
            return length
        }
        _ = ccurl_setopt_long(easy, CURLOPT_NOPROGRESS, 0)
        _ = ccurl_setopt_pointer(easy, CURLOPT_XFERINFODATA, context.toOpaque())
        _ = ccurl_setopt_progress(easy) { raw, _, _, _, _ in
            guard let raw else { return 0 }
            return Unmanaged<Transfer>.fromOpaque(raw).takeUnretainedValue().isCancelled ? 1 : 0
        }
    }

    /// A request that changes something on the service: everything but GET and HEAD. libcurl
    /// must never send one twice by itself (see ``configureChange(on:guarded:)``).
    static func isChange(_ request: HTTPRequest) -> Bool { request.method != "GET" && request.method != "HEAD" }

    /// Whether this libcurl has the callbacks ``installConnectionCallbacks(on:reaching:)`` needs
    /// (7.80); without them every change goes on a fresh connection.
    static let refusesResend = ccurl_can_refuse_resend() != 0

    /// The longest a kept-alive connection may have been idle for a change to go on it, in
    /// seconds. Services close idle connections after a few seconds at the least (Apache's default
    /// is 5): a connection whose last exchange finished this recently is very likely still open,
    /// so a change rarely meets a connection closed under it, which would leave it in doubt.
    static let changeConnectionMaximumIdle = 2

    /// A change reuses a kept-alive connection only when its last exchange finished within
    /// ``changeConnectionMaximumIdle`` (over a slow link a new connection costs a TCP and a TLS
    /// handshake, two round trips or more). libcurl sends a request again by itself when a reused
    /// connection turns out closed before any answer came, and the service may have applied the
    /// first one (a POST twice, a DELETE answered 404): the resend guard
    /// (the pre-request and socket-option callbacks, ``installConnectionCallbacks(on:reaching:)``)
    /// fails such a transfer instead, and the upload treats it as any lost answer (the change is in
    /// doubt and settled before anything is sent again). Without the guard (`guarded` false: a
    /// libcurl without those callbacks) each change goes on a connection of its own.
    private func configureChange(on easy: UnsafeMutableRawPointer, guarded: Bool) {
        guard guarded else {
            _ = ccurl_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1)
            return
        }
        _ = ccurl_setopt_maximum_idle(easy, Self.changeConnectionMaximumIdle)
    }

    /// The pre-request callback (the request is handed to a connection) and the socket-option
    /// callback (a new socket), for every request. They find the connection's socket, so that its
    /// answer is acknowledged at once (``AnswerAcknowledgement``). For a change they are also the
    /// resend guard: once the request has been handed over, a second hand-over or a new socket in
    /// the same transfer is libcurl retrying on a new connection, and the transfer fails there
    /// with ``Transfer/refusedResend`` set, before anything is sent again.
    /// False when libcurl refused the callbacks.
    private func installConnectionCallbacks(on easy: UnsafeMutableRawPointer, reaching context: Unmanaged<Transfer>) -> Bool {
        ccurl_setopt_resend_guard(easy, { raw, primaryIP, _, primaryPort, localPort in
            guard let raw else { return 1 }
            return Unmanaged<Transfer>.fromOpaque(raw).takeUnretainedValue()
                .handOverRequest(localPort: localPort, peer: primaryIP, peerPort: primaryPort) ? 0 : 1
        }, { raw, socket, _ in
            guard let raw else { return 1 }
            return Unmanaged<Transfer>.fromOpaque(raw).takeUnretainedValue().mayOpenConnection(socket) ? 0 : 1
        }, context.toOpaque()) == CURLE_OK
    }

    /// Runs the transfer, with the request's body (if any, or an empty one for a POST) copied to
    /// curl; a method other than POST that has a body is sent as a custom request.
    private func sendBody(of request: HTTPRequest, on easy: UnsafeMutableRawPointer) -> CURLcode {
        if let path = request.bodyFile { return sendFile(path, of: request, on: easy) }
        let body = request.body ?? []
        return body.withUnsafeBytes { bytes -> CURLcode in
            if request.body != nil || request.method == "POST" {
                // A one-byte stand-in when the body is empty: curl needs a valid pointer.
                let zero: [UInt8] = [0]
                _ = ccurl_setopt_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
                let rc = zero.withUnsafeBytes { empty in
                    ccurl_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS,
                                         UnsafeMutableRawPointer(mutating: bytes.baseAddress ?? empty.baseAddress))
                }
                if rc != CURLE_OK { return rc }
                if request.method != "POST" {
                    _ = ccurl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method)
                }
            }
            return curl_easy_perform(easy)
        }
    }

    /// Runs the transfer with the file at `path` as the body, read by curl's read callback a
    /// buffer at a time (memory stays flat whatever its size); its length is announced.
    private func sendFile(_ path: String, of request: HTTPRequest, on easy: UnsafeMutableRawPointer) -> CURLcode {
        guard let source = FileBody(path: path, progress: request.bodyFileProgress) else { return CURLE_READ_ERROR }
        let context = Unmanaged.passRetained(source)
        defer { context.release() }
        _ = ccurl_setopt_long(easy, CURLOPT_POST, 1)
        _ = ccurl_setopt_offset(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(source.length))
        _ = ccurl_setopt_pointer(easy, CURLOPT_READDATA, context.toOpaque())
        _ = ccurl_setopt_callback(easy, CURLOPT_READFUNCTION) { buffer, size, count, raw in
            guard let raw, let buffer else { return Int(CURL_READFUNC_ABORT) }
            return Unmanaged<FileBody>.fromOpaque(raw).takeUnretainedValue().read(into: buffer, capacity: size &* count)
        }
        if request.method != "POST" { _ = ccurl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method) }
        return curl_easy_perform(easy)
    }

    /// Method, URL and the options of this transport.
    private func configure(_ easy: UnsafeMutableRawPointer, for request: HTTPRequest) throws(ODataError) {
        guard ccurl_setopt_string(easy, CURLOPT_URL, request.url) == CURLE_OK else {
            throw ODataError(.misuse, "not a URL libcurl accepts: \(redactedURL(request.url))")
        }
        switch request.method {
        case "GET": _ = ccurl_setopt_long(easy, CURLOPT_HTTPGET, 1)
        case "HEAD": _ = ccurl_setopt_long(easy, CURLOPT_NOBODY, 1)
        case "POST": _ = ccurl_setopt_long(easy, CURLOPT_POST, 1)
        default:
            guard !request.method.isEmpty, request.method.utf8.allSatisfy({ $0 >= 65 && $0 <= 90 }) else {
                throw ODataError(.misuse, "not an HTTP method: '\(request.method)'")
            }
            if request.body == nil { _ = ccurl_setopt_string(easy, CURLOPT_CUSTOMREQUEST, request.method) }
        }
        _ = ccurl_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        // Redirects are followed by `send`, to the same origin only; http and https only.
        _ = ccurl_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        guard ccurl_restrict_to_http(easy) == CURLE_OK else {
            throw ODataError(.network, "libcurl could not be limited to http and https")
        }
        // A Content-Length above the limit fails before the body travels; the write callback
        // counts the decompressed bytes of every answer.
        _ = ccurl_setopt_offset(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(options.maximumResponseSize))
        _ = ccurl_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, milliseconds(options.connectTimeout))
        _ = ccurl_setopt_long(easy, CURLOPT_TIMEOUT_MS, milliseconds(options.requestTimeout))
        // Every encoding this libcurl can decode (gzip, deflate, br, zstd).
        _ = ccurl_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        _ = ccurl_setopt_string(easy, CURLOPT_USERAGENT, options.userAgent)
        _ = ccurl_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, options.verifyTLS ? 1 : 0)
        _ = ccurl_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, options.verifyTLS ? 2 : 0)
        if let caFile = options.caFile { _ = ccurl_setopt_string(easy, CURLOPT_CAINFO, caFile) }
        if let caPath = options.caPath { _ = ccurl_setopt_string(easy, CURLOPT_CAPATH, caPath) }
        switch options.authentication {
        case .basic(let user, let password):
            _ = ccurl_setopt_long(easy, CURLOPT_HTTPAUTH, curlAuthBasic)
            _ = ccurl_setopt_string(easy, CURLOPT_USERNAME, user)
            _ = ccurl_setopt_string(easy, CURLOPT_PASSWORD, password)
        case .bearer(let token):
            _ = ccurl_setopt_long(easy, CURLOPT_HTTPAUTH, curlAuthBearer)
            _ = ccurl_setopt_string(easy, CURLOPT_XOAUTH2_BEARER, token)
        case nil:
            break
        }
        // The cookie engine (see `cookies`) keeps what the service sets; configured cookies are sent on top.
        // Emptying the file list before the reset detached the jar: attach the share's again.
        _ = ccurl_setopt_pointer(easy, CURLOPT_SHARE, cookies)
        _ = ccurl_setopt_string(easy, CURLOPT_COOKIEFILE, "")
        if !options.cookies.isEmpty {
            let cookie = options.cookies.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
            _ = ccurl_setopt_string(easy, CURLOPT_COOKIE, cookie)
        }
    }

    /// The transport's headers first, then the request's own, which win on a repeated name.
    private func requestHeaders(for request: HTTPRequest) -> [HTTPHeader] {
        var result = options.headers
        for header in request.headers {
            let name = asciiLowercased(header.name)
            result.removeAll { asciiLowercased($0.name) == name }
            result.append(header)
        }
        return result
    }

    /// The headers `request` would go out with, credentials masked (``CredentialHeaders``): the
    /// list handed to libcurl (``requestHeaders(for:)``, as ``send(_:cancellation:onBody:)`` makes
    /// it), then those libcurl writes from the options: `User-Agent`, `Authorization` and `Cookie`
    /// (the configured cookies; those the service sets during the session are not known before).
    /// `Host`, `Content-Length` and `Accept-Encoding` are libcurl's and not listed. For an upload's
    /// preview; nothing is sent.
    func headersAsSent(for request: HTTPRequest) -> [(header: HTTPHeader, masked: Bool)] {
        lock.withLock { maskedHeaders(for: request) }
    }

    /// ``headersAsSent(for:)`` with `lock` held by the caller.
    private func maskedHeaders(for request: HTTPRequest) -> [(header: HTTPHeader, masked: Bool)] {
        do {
            // The configured headers are masked by name; the request's own are the engine's (the
            // preview shows its CSRF token as a placeholder).
            var result = requestHeaders(for: request).map { header -> (header: HTTPHeader, masked: Bool) in
                let configured = !request.headers.contains { asciiLowercased($0.name) == asciiLowercased(header.name) }
                return configured && CredentialHeaders.isCredential(header.name)
                    ? (HTTPHeader(header.name, CredentialHeaders.mask), true) : (header, false)
            }
            func has(_ name: String) -> Bool { result.contains { asciiLowercased($0.header.name) == name } }
            if !has("user-agent") { result.append((HTTPHeader("User-Agent", options.userAgent), false)) }
            if !has("authorization") {
                switch options.authentication {
                case .basic: result.append((HTTPHeader("Authorization", "Basic " + CredentialHeaders.mask), true))
                case .bearer: result.append((HTTPHeader("Authorization", "Bearer " + CredentialHeaders.mask), true))
                case nil: break
                }
            }
            if !options.cookies.isEmpty {
                let cookie = options.cookies.map { "\($0.name)=\(CredentialHeaders.mask)" }.joined(separator: "; ")
                result.append((HTTPHeader("Cookie", cookie), true))
            }
            return result
        }
    }

    private func transferError(_ code: CURLcode, detail: String, request: HTTPRequest, transfer: Transfer) -> ODataError {
        let target = "\(request.method) \(redactedURL(request.url))"
        if transfer.refusedResend {
            return ODataError(.network, "\(target): the kept-alive connection closed before an answer came, and "
                              + "the request was not sent again (the service may have applied it)")
        }
        switch code {
        case CURLE_ABORTED_BY_CALLBACK:
            return ODataError(.aborted, "\(target): cancelled")
        case CURLE_WRITE_ERROR where transfer.isTooLarge, CURLE_FILESIZE_EXCEEDED:
            return ODataError(.network, "\(target): the answer is larger than \(options.maximumResponseSize) bytes "
                              + "(decompressed), the maximum response size: refused")
        case CURLE_WRITE_ERROR where transfer.consumerStopped:
            return ODataError(.aborted, "\(target): stopped by the receiver of the body")
        case CURLE_OPERATION_TIMEDOUT:
            return ODataError(.network, "\(target): timed out (\(detail))")
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return ODataError(.network, "\(target): cannot connect (\(detail))")
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_SEND_ERROR:
            return ODataError(.network, "\(target): the connection broke before the answer was complete (\(detail))")
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return ODataError(.misuse, "\(target): not a usable URL (\(detail))")
        default:
            return ODataError(.network, "\(target): \(detail)")
        }
    }
}

/// Cancels a request from any thread.
@_spi(Tool) public final class HTTPCancellation: Sendable {
    private let flag = Protected(false)
    /// Cancelling it cancels this one too (a download's background fetch follows the download's).
    private let parent: HTTPCancellation?
    package init() { parent = nil }
    init(following parent: HTTPCancellation?) { self.parent = parent }
    package func cancel() { flag.withLock { $0 = true } }
    package var isCancelled: Bool { flag.withLock { $0 } || parent?.isCancelled == true }
}

/// Where a transfer's body goes as it arrives, instead of the response's `body`.
protocol HTTPBodySink: AnyObject {
    /// The length the answer's headers announce, told before its first byte (a hint).
    func expect(length: Int)
    /// One chunk of the body; false stops the transfer (``ODataError/Code/aborted``).
    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool
    /// The final answer's status and headers, told before its first byte (a media stream's sink
    /// decides there whether the body continues its file, replaces it or is an error's).
    func begin(status: Int, headers: [HTTPHeader])
}

extension HTTPBodySink {
    func begin(status: Int, headers: [HTTPHeader]) {}
}

/// The public `onBody` closure as a sink.
private final class ClosureBodySink: HTTPBodySink {
    let onBody: (UnsafeRawBufferPointer) -> Bool
    init(_ onBody: @escaping (UnsafeRawBufferPointer) -> Bool) { self.onBody = onBody }
    func expect(length: Int) {}
    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool { onBody(chunk) }
}

/// A request body read from a file by curl's read callback (``HTTPRequest/bodyFile``).
private final class FileBody {
    let fd: Int32
    let length: Int64
    let progress: HTTPBodyFileProgress?
    /// Bytes handed to curl so far.
    private var sent: Int64 = 0

    init?(path: String, progress: HTTPBodyFileProgress?) {
        self.progress = progress
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            return nil
        }
        length = Int64(info.st_size)
    }

    deinit { close(fd) }

    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        while true {
            let count = Glibc.read(fd, buffer, capacity)
            if count < 0 && errno == EINTR { continue }
            if count > 0, let progress {
                sent += Int64(count)
                progress.advance(to: sent, of: length)
            }
            return count < 0 ? Int(CURL_READFUNC_ABORT) : count
        }
    }
}

/// The state of one transfer, reached from curl's callbacks through their user pointer.
private final class Transfer {
    var body: [UInt8] = []
    var headers: [HTTPHeader] = []
    var consumerStopped = false
    /// The body passed the maximum size: the transfer was stopped.
    var isTooLarge = false
    /// The bytes of body received so far, after decompression.
    private var received = 0
    /// The answer is a redirect, which `send` follows: its body is not kept.
    private var isRedirect = false
    /// The status of the response whose headers are being received.
    private var status = 0
    let sink: HTTPBodySink?
    let cancellation: HTTPCancellation?
    let maximumBodySize: Int
    /// The request changes something: libcurl must not send it twice (see ``handOverRequest``).
    let isChange: Bool
    private let acknowledgement: AnswerAcknowledgement
    /// The socket the request went out on, once known: its answers are acknowledged at once.
    private var answerSocket: Int32?

    init(sink: HTTPBodySink?, cancellation: HTTPCancellation?, maximumBodySize: Int, isChange: Bool,
         acknowledgement: AnswerAcknowledgement) {
        self.sink = sink
        self.cancellation = cancellation
        self.maximumBodySize = maximumBodySize
        self.isChange = isChange
        self.acknowledgement = acknowledgement
    }

    var isCancelled: Bool { cancellation?.isCancelled ?? false }

    /// The request has been handed to a connection once (see
    /// ``HTTPTransport/installConnectionCallbacks(on:reaching:)``).
    private var handedOver = false
    /// libcurl tried to send the request a second time, and the guard refused.
    private(set) var refusedResend = false

    /// The pre-request callback, with the connection's addresses: for a change, true the first
    /// time and false (refused) after; a read may be sent again.
    func handOverRequest(localPort: Int32, peer: UnsafePointer<CChar>?, peerPort: Int32) -> Bool {
        if handedOver && isChange {
            refusedResend = true
            return false
        }
        handedOver = true
        answerSocket = acknowledgement.socket(localPort: localPort, peer: peer, peerPort: peerPort)
        return true
    }

    /// The socket-option callback: for a change, a new connection is fine until the request has
    /// been handed over; any socket a request may go out on is remembered.
    func mayOpenConnection(_ socket: Int32) -> Bool {
        if handedOver && isChange {
            refusedResend = true
            return false
        }
        acknowledgement.remember(socket)
        return true
    }

    func receiveBody(_ chunk: UnsafeRawBufferPointer) -> Bool {
        received += chunk.count
        guard received <= maximumBodySize else {
            isTooLarge = true
            return false
        }
        // A redirect `send` follows (it has a Location): its body is dropped.
        if isRedirect && headers.contains(where: { asciiLowercased($0.name) == "location" }) { return true }
        let isFirst = received == chunk.count
        guard let sink else {
            if isFirst, let length = announcedLength { body.reserveCapacity(length) }
            body.append(contentsOf: chunk)
            return true
        }
        if isFirst { sink.begin(status: status, headers: headers) }
        if isFirst, let length = announcedLength { sink.expect(length: length) }
        if sink.receive(chunk) { return true }
        consumerStopped = true
        return false
    }

    /// The body's length as the headers announce it (at most the maximum body size), to make
    /// room for it at once: a page is then one allocation of its size, not a chain of doubled
    /// ones. Only a hint: a compressed answer grows past it, and untouched room costs no memory.
    private var announcedLength: Int? {
        guard let header = headers.last(where: { asciiLowercased($0.name) == "content-length" }),
              let length = Int(header.value.filter { $0 != " " && $0 != "\t" }), length > 0 else { return nil }
        return min(length, maximumBodySize)
    }

    /// One raw header line. A status line starts the headers of a new response (after a
    /// redirect or a `100 Continue`), so the headers kept are those of the final response.
    func receiveHeaderLine(_ raw: UnsafeRawBufferPointer) {
        var line = String(decoding: raw, as: UTF8.self)
        while let last = line.utf8.last, last == 13 || last == 10 { line.removeLast() }
        if line.hasPrefix("HTTP/") {
            // The answer has begun: its ACKs go at once (the service may hold its next segment for one).
            if let answerSocket { acknowledgement.acknowledgeQuickly(answerSocket) }
            headers.removeAll()
            status = line.split(separator: " ", maxSplits: 2).dropFirst().first.flatMap { Int($0) } ?? 0
            isRedirect = HTTPTransport.redirectStatuses.contains(status)
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = String(line[..<colon])
        let value = String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
        headers.append(HTTPHeader(name, value))
    }
}

/// `curl_global_init` must run once, before any other thread uses libcurl.
private let curlGlobalInitialization: CURLcode = curl_global_init(Int(CURL_GLOBAL_ALL))
/// CURLAUTH_BASIC and CURLAUTH_BEARER: macros with casts, which Swift does not import.
private let curlAuthBasic = 1
private let curlAuthBearer = 1 << 6

private func milliseconds(_ seconds: Double) -> Int {
    guard seconds.isFinite, seconds > 0 else { return 0 }
    return Int(min(seconds * 1000, Double(Int32.max)))
}

/// `url` without its user-info part (`https://user:secret@host/` becomes `https://host/`).
func redactedURL(_ url: String) -> String {
    guard let schemeEnd = url.utf8.firstRange(of: "://".utf8) else { return url }
    let authorityStart = schemeEnd.upperBound
    let rest = url.utf8[authorityStart...]
    let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") } ?? url.utf8.endIndex
    guard let at = url.utf8[authorityStart..<authorityEnd].lastIndex(of: UInt8(ascii: "@")) else { return url }
    return String(url[..<authorityStart]) + String(url[url.utf8.index(after: at)...])
}
