extension WriteOutcome {
    /// The answer to the write, as a service gives it: a create's entity as JSON with its address
    /// (`Location`, known from the key it stored), nothing for an update or a delete; `shape`
    /// says what it holds. An answer without a body (204) has no content type either, as a
    /// service's has none.
    func response(shape: AnswerShape) -> StoreResponse {
        StoreResponse(status: status, contentType: body.isEmpty ? "" : "application/json", body: body,
                      headers: location.map { [HTTPHeader("Location", $0)] } ?? [], shape: shape)
    }
}
