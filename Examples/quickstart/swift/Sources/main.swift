// The offline loop from Swift: open a store on a service with a defining request (a new store
// downloads it), read offline, create an agency offline, upload it.
//
//   swift run quickstart [SERVICE_ROOT]        (or set OOD_SERVICE)
import Foundation  // getenv, exit
import OfflineOData

guard let service = CommandLine.arguments.dropFirst().first ?? getenv("OOD_SERVICE").map({ String(cString: $0) }) else {
    print("usage: quickstart SERVICE_ROOT (or set OOD_SERVICE)")
    exit(2)
}
var options = ODataStore.Options(path: "quickstart-swift.store", serviceRoot: service)
options.definingRequests = [DefiningRequest(name: "Agencies", url: "TravelagencyCollection?$filter=country eq 'US'")]
// Returns at once; requests wait until the store is open and its first download is in.
let store = ODataStore.open(options)
defer { store.close() }
do {
    let read = try await store.get("TravelagencyCollection?$filter=city eq 'New York'&$select=name")
    print("read offline:", read.text)
    let body = #"{"agencynum":"99000104","name":"Quickstart Swift","city":"New York","country":"US"}"#
    let created = try await store.create("TravelagencyCollection", body: Array(body.utf8))
    print("created offline: HTTP \(created.status)")
    let upload = try await store.upload()
    print("uploaded: \(upload.sent) sent, \(upload.archived) refused")
    if upload.archived > 0 { exit(1) }
} catch {
    print("failed: \(error)")
    exit(1)
}
