// What ood::Store::download answers of a download against the real V4 service behind the fault
// proxy (Tests/scripts/with_fault_proxy.py: answers in pages of 5, so the 40 agencies come in 8
// pages, and the 11th request for them cut half-way: page 3 of the second download, after the 8
// pages of the first download when the store is made). A download cut part-way throws
// OOD_NETWORK and keeps the pages before the cut; the next resumes after them and says so.
// Under OOD_TEST_STORE_KEY every store opens with that key (make test-encrypted): included
// before the wrapper, so the wrapper's own calls take it.
#include "../c/under_key.h"
#include "offline_odata.hpp"
#include "../c/check.h"  // CHECK and the summary, as the C tests have them

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

/// The number after "key": in `json`, or -1 when the key is not there.
long json_number(const std::string &json, const std::string &key) {
    const std::string pattern = "\"" + key + "\":";
    const auto found = json.find(pattern);
    return found == std::string::npos ? -1 : std::strtol(json.c_str() + found + pattern.size(), nullptr, 10);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s METADATA_XML SERVICE_ROOT (Tests/scripts/with_fault_proxy.py gives the root)\n", argv[0]);
        return 2;
    }
    std::ifstream file(argv[1]);
    std::stringstream metadata;
    metadata << file.rdbuf();
    char folder[] = "/tmp/ood-cpp-download-XXXXXX";
    if (!file || mkdtemp(folder) == nullptr) {
        std::fprintf(stderr, "cannot read %s or make a folder\n", argv[1]);
        return 2;
    }
    try {
        ood::Options options;
        options.path(std::string(folder) + "/agencies.store").service_root(argv[2]).metadata(metadata.str())
            .defining_request("Agencies", "TravelagencyCollection").timeouts(10, 60);
        ood::Store store = ood::Store::open(options);  // the first download: 8 pages

        ood_status cut = OOD_OK;
        try {
            store.download({"Agencies"}, true);
        } catch (const ood::Error &error) {
            cut = error.status();
        }
        CHECK(cut == OOD_NETWORK);

        long pages_seen = 0;
        const std::string resumed = store.download({"Agencies"}, true, [&](long, long) { ++pages_seen; return false; });
        const long pages = json_number(resumed, "pages");
        const long fetched = json_number(resumed, "fetchedPages");
        const long at = json_number(resumed, "resumedAtPage");
        CHECK(pages == 8 && json_number(resumed, "entities") == 40);
        CHECK(at > 1 && at <= 3);
        CHECK(fetched > 0 && fetched < pages && fetched == pages - (at - 1));
        CHECK(pages_seen == fetched);  // progress came for the pages fetched
        if (check_failed) std::fprintf(stderr, "resumed download: %s\n", resumed.c_str());

        const std::string fresh = store.download({"Agencies"}, true);
        CHECK(fresh.find("resumedAtPage") == std::string::npos);
        CHECK(json_number(fresh, "pages") == 8 && json_number(fresh, "fetchedPages") == 8);

        // With ood_download_flags's flags: whole, without the check of the service's $metadata.
        const std::string unchecked = store.download_flags({"Agencies"}, OOD_DOWNLOAD_FULL | OOD_DOWNLOAD_NO_MODEL_CHECK);
        CHECK(json_number(unchecked, "pages") == 8 && json_number(unchecked, "entities") == 40);
    } catch (const ood::Error &error) {
        check_failed++;
        std::fprintf(stderr, "unexpected ood::Error %d: %s\n", static_cast<int>(error.status()), error.what());
    }
    const std::string command = std::string("rm -rf '") + folder + "'";
    if (std::system(command.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", folder);
    return check_summary("cpp_download_outcome");
}
