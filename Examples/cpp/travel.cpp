// The whole offline loop from C++ with the wrapper offline_odata.hpp: RAII handles, failures as
// ood::Error exceptions, progress and events as lambdas, an answer's headers, a future.
//
//   travel_cpp STORE_FILE SERVICE_ROOT
#include <offline_odata.hpp>

#include <atomic>
#include <iostream>
#include <string>

int main(int argc, char **argv) {
    if (argc != 3) {
        std::cerr << "usage: " << argv[0] << " STORE_FILE SERVICE_ROOT\n";
        return 2;
    }
    try {
        ood::Options options;
        options.path(argv[1]).service_root(argv[2]).defining_request("Agencies", "TravelagencyCollection?$filter=country eq 'US'");
        ood::Store store = ood::Store::open(options);  // a new store downloads its defining requests
        std::atomic<int> changes{0};  // events come on the store's event thread
        ood::Subscription events = store.subscribe([&changes](int kind, std::string_view) {
            if (kind == OOD_EVENT_ENTITY_SETS_CHANGED) ++changes;
        });

        std::cout << "agencies in the store: " << store.get("TravelagencyCollection/$count").body() << "\n";
        ood::Result agency = store.get("TravelagencyCollection('00000001')");
        std::cout << "agency 00000001 has the ETag " << agency.etag().value_or("(none)") << "\n";

        ood::Result created = store.request("POST", "TravelagencyCollection",
            R"({"agencynum":"99000778","name":"Example C++ Travel","city":"Boston","country":"US"})");
        std::cout << "created offline: HTTP " << created.status() << " at " << created.location().value_or("?") << "\n";

        ood::Store::UploadCounts uploaded = store.upload([](long done, long total) {
            std::cout << "  uploaded " << done << " of " << total << "\n";
            return false;  // true would stop the upload
        });
        std::cout << "uploaded: " << uploaded.sent << " sent, " << uploaded.archived << " refused\n";

        store.download([](long done, long total) {
            std::cout << "  downloaded " << done << " of " << total << "\n";
            return false;
        });
        // An asynchronous read: the future answers it, or throws its ood::Error.
        std::future<ood::Result> read = store.request_async("GET", "TravelagencyCollection('99000778')");
        bool there = read.get().body().find("Example C++ Travel") != std::string_view::npos;
        std::cout << "after the download: " << (there ? "the agency is there" : "missing") << "\n";
        std::cout << "\"entity sets changed\" events so far: " << changes.load() << "\n";

        try {
            store.get("TravelagencyCollection?$filter=name eq");
        } catch (const ood::Error &error) {
            std::cout << "a broken filter: " << ood_status_name(error.status()) << " at offset " << error.offset() << "\n";
        }
        return there ? 0 : 1;
    } catch (const ood::Error &error) {
        std::cerr << error.what();
        if (error.http_status() != 0) std::cerr << " [HTTP " << error.http_status() << "]";
        std::cerr << "\n";
        return 1;
    }
}
