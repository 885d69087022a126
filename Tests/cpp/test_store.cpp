// The C++ test of store files through the wrapper (offline_odata.hpp), no service needed: a store
// file opened and closed by its RAII handle, failures thrown as ood::Error with their status.
// Under OOD_TEST_STORE_KEY every store opens with that key (make test-encrypted): included
// before the wrapper, so the wrapper's own calls take it.
#include "../c/under_key.h"
#include "offline_odata.hpp"

#include <cstdio>
#include <cstdlib>
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

/// The status of the ood::Error `body` throws; OOD_OK when it throws none.
template <typename Body>
ood_status status_thrown_by(Body body, std::string *message = nullptr) {
    try {
        body();
    } catch (const ood::Error &error) {
        if (message != nullptr) *message = error.what();
        return error.status();
    }
    return OOD_OK;
}

}  // namespace

int main() {
    char folder[] = "/tmp/ood-cpp-test-XXXXXX";
    if (!mkdtemp(folder)) return 2;
    const std::string path = std::string(folder) + "/raii.store";

    {
        ood::Store store = ood::Store::open(path);
        CHECK(store.format_version() == 14);
        CHECK(store.path() == path);
        // A store file without a model takes no requests: a misuse, thrown.
        CHECK(status_thrown_by([&] { store.get("TravelagencyCollection"); }) == OOD_MISUSE);
        // Nor watches (ood::Watch, the RAII handle of ood_watch).
        CHECK(status_thrown_by([&] { ood::Watch watch = store.watch("TravelagencyCollection", [](ood_status, std::string_view) {}); })
              == OOD_MISUSE);
        store.close();
        CHECK(status_thrown_by([&] { store.format_version(); }) == OOD_MISUSE);
    }

    std::string message;
    CHECK(status_thrown_by([&] { ood::Store::open(std::string(folder) + "/missing/x.store"); }, &message)
          == OOD_CANTOPEN);
    CHECK(message.find("cannot open") != std::string::npos && message.find("OOD_CANTOPEN") != std::string::npos);
    CHECK(status_thrown_by([] { ood::Store::open(""); }) == OOD_MISUSE);

    CHECK(std::string(ood_version()) == OOD_VERSION);

    std::string cleanup = std::string("rm -rf '") + folder + "'";
    if (std::system(cleanup.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", folder);
    std::printf("C++ store test: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
