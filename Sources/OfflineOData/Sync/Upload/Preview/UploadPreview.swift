/// What the next upload would send, in order, built from the queue without sending anything or
/// changing the store (``LocalStore/previewUpload(batch:batchSize:groupByTransaction:)``).
///
/// Each request is built by the code the upload sends it with (``UploadRequests``,
/// ``BatchRequestBuilder``), so method, URL, headers and body are the upload's. Credentials are
/// masked (``PreviewHeader/Shown/masked``); what only the upload can know (the CSRF token the
/// service hands out, an ETag an earlier answer or a read brings, the first-sent date of a
/// repeatable request) is a placeholder (``UploadPreviewPlaceholder``).
public struct UploadPreview: Sendable, Equatable {
    /// Whether the queue goes in `$batch` requests.
    public var batch: Bool
    /// What the upload does, first to last.
    public var steps: [UploadPreviewStep]

    public init(batch: Bool, steps: [UploadPreviewStep]) {
        self.batch = batch
        self.steps = steps
    }

    /// The HTTP requests, in the order they would be sent.
    public var requests: [PreviewRequest] { steps.compactMap(\.request) }
}

/// One step of an upload.
public struct UploadPreviewStep: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// A request in doubt (sent, answer lost) is found out first: its entity is read.
        case settle
        /// Requests in doubt that cannot be found out go to the error archive (nothing is sent).
        case archive
        /// An entity is read for the ETag a change needs (its set checks ETags, and none is queued).
        case read
        /// The CSRF token is fetched (`X-CSRF-Token: Fetch`) before the first change.
        case csrfFetch
        /// One queued request, sent alone.
        case send
        /// A `$batch` of queued requests in change sets.
        case batch
    }

    public var kind: Kind
    /// The queued requests it is about (queue ids, in order).
    public var requestIDs: [Int64]
    /// The request it sends; nil when it sends none (``Kind/archive``).
    public var request: PreviewRequest?
    /// For ``Kind/batch``: the queue ids of each change set, in order.
    public var changeSets: [[Int64]]
    /// Why the step happens, and what depends on the service's answers; empty when nothing does.
    public var note: String

    public init(kind: Kind, requestIDs: [Int64], request: PreviewRequest? = nil, changeSets: [[Int64]] = [], note: String = "") {
        self.kind = kind
        self.requestIDs = requestIDs
        self.request = request
        self.changeSets = changeSets
        self.note = note
    }
}

/// An HTTP request as the upload would send it.
public struct PreviewRequest: Sendable, Equatable {
    public var method: String
    /// The absolute URL (without user-info).
    public var url: String
    /// The engine's and the configured headers in the order handed to libcurl, then those libcurl
    /// writes from the options (`User-Agent`, `Authorization`, `Cookie`). `Host`, `Content-Length`
    /// and `Accept-Encoding` are libcurl's and not listed.
    public var headers: [PreviewHeader]
    /// The body as text (JSON, or a `$batch`'s multipart text); nil for none.
    public var body: String?

    public init(method: String, url: String, headers: [PreviewHeader], body: String?) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

public struct PreviewHeader: Sendable, Equatable {
    public enum Shown: String, Sendable {
        /// The value sent.
        case exact
        /// A credential: its value is not shown (`***`).
        case masked
        /// Known only during the upload: the value shows what it will be (``UploadPreviewPlaceholder``).
        case placeholder
    }

    public var name: String
    public var value: String
    public var shown: Shown

    public init(name: String, value: String, shown: Shown = .exact) {
        self.name = name
        self.value = value
        self.shown = shown
    }
}
