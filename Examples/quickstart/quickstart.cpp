// The offline loop from C++ with the wrapper offline_odata.hpp (RAII handles, ood::Error thrown):
// open a store with a defining request (a new store downloads it), read offline, create, upload.
//   quickstart [SERVICE_ROOT]        (or set OOD_SERVICE)
#include <offline_odata.hpp>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>

int main(int argc, char **argv) try {
    const char *service = argc > 1 ? argv[1] : std::getenv("OOD_SERVICE");
    if (service == nullptr) throw std::runtime_error(std::string("usage: ") + argv[0] + " SERVICE_ROOT (or set OOD_SERVICE)");
    ood::Options options;
    options.path("quickstart-cpp.store").service_root(service)
           .defining_request("Agencies", "TravelagencyCollection?$filter=country eq 'US'");
    ood::Store store = ood::Store::open(options);
    ood::Result read = store.get("TravelagencyCollection?$filter=city eq 'New York'&$select=name");
    std::cout << "read offline: " << read.body() << "\n";
    ood::Result created = store.request("POST", "TravelagencyCollection",
        R"({"agencynum":"99000102","name":"Quickstart C++","city":"New York","country":"US"})");
    std::cout << "created offline: HTTP " << created.status() << " at " << created.location().value_or("") << "\n";
    ood::Store::UploadCounts uploaded = store.upload();
    std::cout << "uploaded: " << uploaded.sent << " sent, " << uploaded.archived << " refused\n";
    return uploaded.archived == 0 ? 0 : 1;
} catch (const std::exception &error) {  // ood::Error: status, message, offset, HTTP status
    std::cerr << error.what() << "\n";
    return 1;
}
