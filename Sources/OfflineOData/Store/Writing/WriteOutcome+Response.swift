extension WriteOutcome {
    /// The answer to the write, as a service gives it: a create's entity as JSON with its address
    /// (`Location`, known from the key it stored), nothing for an update or a delete; `shape`
    /// says what it holds.
    func response(shape: AnswerShape) -> StoreResponse {
        StoreResponse(status: status, contentType: "application/json", body: body,
                      headers: location.map { [HTTPHeader("Location", $0)] } ?? [], shape: shape)
    }
}
