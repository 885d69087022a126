#if canImport(Glibc)
import Glibc
#endif
@_spi(Tool) import OfflineOData

/// The download's page reading and writing: the input is one page of a defining request's answer
/// (JSON, whatever the service sends), loaded into a V4 and a V2 store in memory as the answer of
/// a request with `$expand` and, with a full refresh, of one without. Errors are fine; traps are not.
@Sendable func fuzzPage(_ bytes: UnsafeRawBufferPointer) {
    let page = Array(bytes)
    if fuzzPageStores.count != 2 {
        print("page: the harness's stores could not be made")
        abort()
    }
    for store in fuzzPageStores {
        _ = try? store.load(pages: [page], definingRequest: "Orders")
        _ = try? store.load(pages: [page], definingRequest: "Items", fullRefresh: true)
        _ = try? store.execute(method: "GET", url: "Orders?$expand=Items&$top=5")
    }
}

/// One store per dialect over the URL harness's model, made once (a store per input would spend
/// the run creating tables). The model's `Id` and `ID` differ only in case: each has its column.
let fuzzPageStores: [LocalStore] = ["4.0", "1.0"].compactMap { version in
    try? LocalStore.create(path: ":memory:", metadata: fuzzModelDocument(version: version),
                             definingRequests: [DefiningRequest(name: "Orders", url: "Orders?$expand=Items"),
                                                DefiningRequest(name: "Items", url: "Items")])
}
