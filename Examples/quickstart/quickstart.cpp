// The offline loop from C++ (the C API, each handle owned by a std::unique_ptr, failures thrown):
// open a store with a defining request (a new store downloads it), read offline, create, upload.
//   quickstart [SERVICE_ROOT]        (or set OOD_SERVICE)
#include <offline_odata.h>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

// Releases each handle with its own function.
struct Release {
    void operator()(ood_options *options) const { ood_options_free(options); }
    void operator()(ood_store *store) const { ood_store_close(store); }
    void operator()(ood_result *result) const { ood_result_free(result); }
};
template <typename Handle> using Owned = std::unique_ptr<Handle, Release>;

static void check(ood_status status, const std::string &step) {
    if (status != OOD_OK) throw std::runtime_error(step + ": " + ood_error_message() + " (" + ood_status_name(status) + ")");
}

static Owned<ood_result> request(ood_store *store, const char *method, const char *url, const char *body = nullptr) {
    ood_result *result = nullptr;
    check(ood_request(store, method, url, body, &result), std::string(method) + " " + url);
    return Owned<ood_result>(result);
}

int main(int argc, char **argv) try {
    const char *service = argc > 1 ? argv[1] : std::getenv("OOD_SERVICE");
    if (service == nullptr) throw std::runtime_error(std::string("usage: ") + argv[0] + " SERVICE_ROOT (or set OOD_SERVICE)");
    ood_options *raw_options = nullptr;
    check(ood_options_new(&raw_options), "options");
    Owned<ood_options> options(raw_options);
    check(ood_options_set_path(options.get(), "quickstart-cpp.store"), "path");
    check(ood_options_set_service_root(options.get(), service), "service root");
    check(ood_options_add_defining_request(options.get(), "Agencies", "TravelagencyCollection?$filter=country eq 'US'"),
          "defining request");
    ood_store *raw_store = nullptr;
    check(ood_store_open_with(options.get(), &raw_store), "open");
    Owned<ood_store> store(raw_store);
    auto read = request(store.get(), "GET", "TravelagencyCollection?$filter=city eq 'New York'&$select=name");
    std::cout << "read offline: " << ood_result_body(read.get(), nullptr) << "\n";
    auto created = request(store.get(), "POST", "TravelagencyCollection",
                           R"({"agencynum":"99000102","name":"Quickstart C++","city":"New York","country":"US"})");
    std::cout << "created offline: HTTP " << ood_result_status(created.get()) << "\n";
    long sent = 0, refused = 0;
    check(ood_upload(store.get(), nullptr, nullptr, &sent, &refused), "upload");
    std::cout << "uploaded: " << sent << " sent, " << refused << " refused\n";
    return refused == 0 ? 0 : 1;
} catch (const std::exception &error) {
    std::cerr << error.what() << "\n";
    return 1;
}
