/// One HTTP header line. In Support, below the transport, because errors carry the headers of a
/// service's refusal (``ODataError/httpHeaders``) as well as requests and answers.
public struct HTTPHeader: Sendable, Equatable {
    public var name: String
    public var value: String
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
