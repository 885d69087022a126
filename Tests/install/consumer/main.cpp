// The C++ wrapper from the installed package: opens an offline store on a $metadata file, creates
// an entity and reads it back, and prints the library version.
//   consumer_cpp METADATA_FILE STORE_FILE
#include <offline_odata.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char **argv) {
    if (argc != 3) {
        std::cerr << "usage: " << argv[0] << " METADATA_FILE STORE_FILE\n";
        return 2;
    }
    std::ifstream file(argv[1]);
    std::stringstream metadata;
    metadata << file.rdbuf();
    try {
        ood::Options options;
        options.path(argv[2]).metadata(metadata.str()).mode(OOD_MODE_OFFLINE);
        ood::Store store = ood::Store::open(options);
        ood::Result created = store.request("POST", "TravelagencyCollection",
                                            R"({"agencynum":"99000401","name":"Installed","country":"US"})");
        ood::Result read = store.get("TravelagencyCollection('99000401')");
        if (created.status() != 201 || !created.location() || read.body().find("Installed") == std::string_view::npos) {
            std::cerr << "unexpected answer: " << created.status() << " " << read.body() << "\n";
            return 1;
        }
    } catch (const ood::Error &error) {
        std::cerr << error.what() << "\n";
        return 1;
    }
    std::cout << "OfflineOData " << ood_version() << "\n";
    return ood_version_number() == OOD_VERSION_NUMBER ? 0 : 1;
}
