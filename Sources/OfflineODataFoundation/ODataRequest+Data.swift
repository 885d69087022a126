import FoundationEssentials
import OfflineOData

// Request and answer bodies as `Data`, beside the engine's byte arrays.

extension ODataRequest {
    /// A request whose body is `body` (JSON, as ``ODataRequest/body``).
    public init(method: String, url: String, body: Data, headers: [HTTPHeader] = [], transactionID: String? = nil,
                mergeable: Bool = true) {
        self.init(method: method, url: url, body: [UInt8](body), headers: headers, transactionID: transactionID,
                  mergeable: mergeable)
    }
}

extension StoreResponse {
    /// The body as `Data`.
    public var data: Data { Data(body) }
}
