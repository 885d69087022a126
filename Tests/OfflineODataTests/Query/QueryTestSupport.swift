@_spi(Tool) @testable import OfflineOData

/// The error a parse throws, or nil when it succeeds.
func parseError<T>(_ body: () throws(ODataError) -> T) -> ODataError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}
