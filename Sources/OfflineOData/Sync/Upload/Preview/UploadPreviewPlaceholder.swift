/// The text an upload's preview shows for a value only the upload itself can know, in a header or
/// in a `$batch` body. Each is written `<...>`, so it cannot be taken for a value.
public enum UploadPreviewPlaceholder {
    /// The token a SAP Gateway-like service answers to the CSRF fetch; a service that hands out
    /// none gets the requests without the header.
    public static let csrfToken = "<CSRF token fetched by the upload>"
    /// The date a repeatable request is first sent (`Repeatability-First-Sent`, part of its id).
    public static let firstSent = "<first-sent date>"
    /// The store's client id, made by its first upload (``RepeatableRequests``).
    public static let clientID = "<client id>"
    /// The ETag the read before the change finds (``UploadPreviewStep/Kind/read``).
    public static let readETag = "<ETag of the read before it>"

    /// The ETag the answer to the earlier request `id` on the same entity gives (`*` after a create
    /// answered without one; the queued one, or none, after a change answered without one).
    public static func answerETag(of id: Int64) -> String { "<ETag of the answer to request \(id)>" }

    /// Whether `text` holds a placeholder.
    static func appears(in text: String) -> Bool {
        [csrfToken, firstSent, clientID, readETag, "<ETag of the answer to request "].contains { text.contains($0) }
    }
}
