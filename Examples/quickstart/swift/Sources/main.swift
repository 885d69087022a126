// The offline loop from Swift: open a store on a service with a defining request (a new store
// downloads it), read offline into Codable values, create an agency offline from one, upload it,
// and watch the store's events as an AsyncSequence meanwhile.
//
//   swift run quickstart [SERVICE_ROOT]        (or set OOD_SERVICE)
import Foundation  // getenv, exit
import OfflineODataFoundation

struct Agency: Codable {
    var agencynum: String
    var name: String
    var city: String
    var country: String
}

guard let service = CommandLine.arguments.dropFirst().first ?? getenv("OOD_SERVICE").map({ String(cString: $0) }) else {
    print("usage: quickstart SERVICE_ROOT (or set OOD_SERVICE)")
    exit(2)
}
var options = ODataStore.Options(path: "quickstart-swift.store", serviceRoot: service)
options.definingRequests = [DefiningRequest(name: "Agencies", url: "TravelagencyCollection?$filter=country eq 'US'")]
// Returns at once; requests wait until the store is open and its first download is in.
let store = ODataStore.open(options)
// The events end when the store closes.
let watcher = Task {
    for await event in store.events {
        if case .entitySetsChanged(let sets) = event { print("changed: \(sets.sorted())") }
    }
}
var failed = false
do {
    let agencies = try await store.entities("TravelagencyCollection?$filter=city eq 'New York'", as: Agency.self)
    print("read offline:", agencies.map(\.name).joined(separator: ", "))
    let agency = Agency(agencynum: "99000104", name: "Quickstart Swift", city: "New York", country: "US")
    let created = try await store.create("TravelagencyCollection", from: agency)
    print("created offline: HTTP \(created.status)")
    // The progress closure answers whether to stop: false goes on.
    let upload = try await store.perform(.upload(UploadOptions { step in
        print("upload progress: \(step.sent + step.archived) of \(step.total)")
        return false
    }))
    print("uploaded: \(upload.sent) sent, \(upload.archived) refused")
    failed = upload.archived > 0
} catch {
    print("failed: \(error)")
    failed = true
}
store.close()
await watcher.value
exit(failed ? 1 : 0)
