// The whole offline loop from C++, with RAII wrappers around the C handles: every handle is
// released by its own ood_*_free/close, failures become exceptions.
//
//   travel_cpp STORE_FILE SERVICE_ROOT
#include <offline_odata.h>

#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

namespace ood {

/// A failed call: its status and the library's message.
struct Error : std::runtime_error {
    ood_status status;
    Error(const std::string &what, ood_status s)
        : std::runtime_error(what + ": " + ood_error_message() + " (" + ood_status_name(s) + ")"), status(s) {}
};

inline void check(ood_status status, const char *what) {
    if (status != OOD_OK) throw Error(what, status);
}

struct OptionsDeleter { void operator()(ood_options *o) const { ood_options_free(o); } };
struct StoreDeleter { void operator()(ood_store *s) const { ood_store_close(s); } };
struct ResultDeleter { void operator()(ood_result *r) const { ood_result_free(r); } };

/// An answer: HTTP status and body.
class Result {
public:
    explicit Result(ood_result *r) : handle_(r) {}
    int status() const { return ood_result_status(handle_.get()); }
    std::string body() const {
        size_t length = 0;
        const char *text = ood_result_body(handle_.get(), &length);
        return std::string(text, length);
    }
private:
    std::unique_ptr<ood_result, ResultDeleter> handle_;
};

class Store {
public:
    Store(const std::string &path, const std::string &service_root) {
        ood_options *raw = nullptr;
        check(ood_options_new(&raw), "options");
        std::unique_ptr<ood_options, OptionsDeleter> options(raw);
        check(ood_options_set_path(raw, path.c_str()), "path");
        check(ood_options_set_service_root(raw, service_root.c_str()), "service root");
        check(ood_options_add_defining_request(raw, "Agencies", "TravelagencyCollection?$filter=country eq 'US'"),
              "defining request");
        ood_store *store = nullptr;
        check(ood_store_open_with(raw, &store), "open");
        store_.reset(store);
    }

    Result request(const std::string &method, const std::string &url, const char *body = nullptr) {
        ood_result *result = nullptr;
        check(ood_request(store_.get(), method.c_str(), url.c_str(), body, &result), (method + " " + url).c_str());
        return Result(result);
    }

    long upload() {
        long sent = 0, archived = 0;
        check(ood_upload(store_.get(), nullptr, nullptr, &sent, &archived), "upload");
        return sent;
    }

    void download() { check(ood_download(store_.get(), nullptr, nullptr), "download"); }

private:
    std::unique_ptr<ood_store, StoreDeleter> store_;
};

} // namespace ood

int main(int argc, char **argv) {
    if (argc != 3) {
        std::cerr << "usage: " << argv[0] << " STORE_FILE SERVICE_ROOT\n";
        return 2;
    }
    try {
        ood::Store store(argv[1], argv[2]);
        std::cout << "agencies in the store: " << store.request("GET", "TravelagencyCollection/$count").body() << "\n";
        auto created = store.request("POST", "TravelagencyCollection",
                                     R"({"agencynum":"99000778","name":"Example C++ Travel","city":"Boston","country":"US"})");
        std::cout << "created offline: HTTP " << created.status() << "\n";
        std::cout << "uploaded: " << store.upload() << " sent\n";
        store.download();
        bool there = store.request("GET", "TravelagencyCollection('99000778')").body().find("Example C++ Travel") != std::string::npos;
        std::cout << "after the download: " << (there ? "the agency is there" : "missing") << "\n";
        return there ? 0 : 1;
    } catch (const ood::Error &error) {
        std::cerr << error.what() << "\n";
        return 1;
    }
}
