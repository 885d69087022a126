/// The headers every request to an OData service carries for its dialect: JSON answers and the
/// protocol version (V2 `DataServiceVersion`, V4 `OData-Version`, with minimal metadata).
enum ODataProtocolHeaders {
    static func json(for dialect: Dialect) -> [HTTPHeader] {
        switch dialect {
        case .v2:
            return [HTTPHeader("Accept", "application/json"), HTTPHeader("MaxDataServiceVersion", "2.0"),
                    HTTPHeader("DataServiceVersion", "2.0")]
        case .v4:
            return [HTTPHeader("Accept", "application/json;odata.metadata=minimal"),
                    HTTPHeader("OData-MaxVersion", "4.01"), HTTPHeader("OData-Version", "4.0")]
        }
    }
}
