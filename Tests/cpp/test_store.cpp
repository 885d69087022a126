// The C++ test: the library used through RAII wrappers, as a C++ program would.
#include "offline_odata.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace {

int passed = 0;
int failed = 0;

void check(bool condition, const char *what, int line) {
    if (condition) {
        ++passed;
    } else {
        ++failed;
        std::fprintf(stderr, "test_store.cpp:%d: check failed: %s\n", line, what);
    }
}
#define CHECK(cond) check((cond), #cond, __LINE__)

/// A failed call, carrying its status and the library's message.
struct Error : std::runtime_error {
    ood_status status;
    Error(ood_status s, const std::string &message) : std::runtime_error(message), status(s) {}
};

/// Throws for a non-OK status. The message is read after the call, never before it.
void throwIfFailed(ood_status status) {
    if (status != OOD_OK) throw Error(status, ood_error_message());
}

struct StoreCloser {
    void operator()(ood_store *store) const { ood_store_close(store); }
};
struct StringFreer {
    void operator()(char *s) const { ood_string_free(s); }
};
using StorePtr = std::unique_ptr<ood_store, StoreCloser>;
using OwnedString = std::unique_ptr<char, StringFreer>;

StorePtr openStore(const std::string &path) {
    ood_store *raw = nullptr;
    throwIfFailed(ood_store_open(path.c_str(), &raw));
    return StorePtr(raw);
}

}  // namespace

int main() {
    char folder[] = "/tmp/ood-cpp-test-XXXXXX";
    if (!mkdtemp(folder)) return 2;
    const std::string path = std::string(folder) + "/raii.store";

    {
        StorePtr store = openStore(path);
        int version = 0;
        throwIfFailed(ood_store_format_version(store.get(), &version));
        CHECK(version == 7);
        char *raw = nullptr;
        throwIfFailed(ood_store_path(store.get(), &raw));
        OwnedString copy(raw);
        CHECK(path == copy.get());
    }

    try {
        openStore(std::string(folder) + "/missing/x.store");
        CHECK(false);
    } catch (const Error &error) {
        CHECK(error.status == OOD_CANTOPEN);
        CHECK(std::string(error.what()).find("cannot open") != std::string::npos);
    }

    try {
        openStore("");
        CHECK(false);
    } catch (const Error &error) {
        CHECK(error.status == OOD_MISUSE);
    }

    CHECK(std::string(ood_version()) == OOD_VERSION);

    std::string cleanup = std::string("rm -rf '") + folder + "'";
    if (std::system(cleanup.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", folder);
    std::printf("C++ store test: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
