/// What a service-model check says when it cannot read the service's `$metadata`, so that a
/// download that checks first fails the way the user can act on.
///
/// A failure that may pass by itself (no connection, a timeout, 408, 429, a 5xx other than 501)
/// stays the error a page of the download would have given (``ODataError/Code/network`` or
/// ``ODataError/Code/http`` with its status): the download fails, is recorded as failed, and the
/// next one checks again. Credentials refused (401, 407) stay too: they are the download's own.
/// Any other answer (404, 403, 405, 501, a page that is no metadata document) will not pass by
/// itself: ``ODataError/Code/metadata``, naming `$metadata` and the way to download without the check.
enum ServiceModelFailure {
    /// How a download goes on where the service never serves its `$metadata`, on every surface.
    static let withoutTheCheck = "download without the check where the service never serves it "
        + "(DownloadOptions.checksServiceModel = false; C: OOD_DOWNLOAD_NO_MODEL_CHECK; "
        + "Python: download(check_model=False); the tool: download --no-model-check)"

    /// Whether an answer with `status` is left as the download's own error: it may pass by itself
    /// (408, 425, 429, a 5xx but 501 and 505), or it refuses the credentials (401, 407).
    static func staysAsIs(status: Int) -> Bool {
        [401, 407, 408, 425, 429].contains(status) || (status >= 500 && status != 501 && status != 505)
    }

    /// The error for the service's error answer `error` to `GET $metadata`.
    static func refusal(_ error: ODataError) -> ODataError {
        guard let status = error.httpStatus, !staysAsIs(status: status) else { return error }
        var persistent = ODataError(.metadata, "the service does not serve its $metadata (\(error.message)): every download "
                                    + "checks the service's model first; " + withoutTheCheck)
        persistent.httpStatus = status
        persistent.httpHeaders = error.httpHeaders
        return persistent
    }

    /// The error for a `$metadata` answer (status 200) that is not a metadata document the engine
    /// reads: a login page, an error page served as 200.
    static func unreadable(_ error: ODataError) -> ODataError {
        ODataError(.metadata, "the service's $metadata is not a metadata document the store can read (\(error.message)); "
                   + withoutTheCheck)
    }
}
