// Media streams through the C++ wrapper (issue 35, docs/MEDIA.md), against the V4 test service
// serving the media model (Tests/scripts/with_backend.sh PYTHON v4 --media 3:70000 -- test_media_cpp
// SERVICE_ROOT): a defining request that retrieves streams, a stream's file, GET of its $value, a
// media entity created offline and its stream replaced, uploaded; V4 stream properties read and replaced.
#include "offline_odata.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
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
        std::fprintf(stderr, "test_media.cpp:%d: check failed: %s\n", line, what);
    }
}
#define CHECK(cond) check((cond), #cond, __LINE__)

template <typename Body>
ood_status status_thrown_by(Body body) {
    try {
        body();
    } catch (const ood::Error &error) {
        return error.status();
    }
    return OOD_OK;
}

std::string file_text(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const std::string &path, const std::string &text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
}

}  // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s SERVICE_ROOT\n", argv[0]);
        return 2;
    }
    char folder[] = "/tmp/ood-cpp-media-XXXXXX";
    if (mkdtemp(folder) == nullptr) return 2;
    const std::string base(folder);
    try {
        ood::Options options;
        options.path(base + "/media.store").service_root(argv[1]);
        options.defining_request_streams("Documents", "Documents").defining_request("Notes", "Notes");
        options.stream_limits(0, 0);
        ood::Store store = ood::Store::open(options);  // the first open downloads, streams too

        ood::Store::StreamFile file = store.stream_file("Documents(2)/$value");
        CHECK(file.length == 70000 && file.content_type == "application/pdf");
        const std::string bytes = file_text(file.path);
        CHECK(bytes.size() == 70000);
        ood::Result value = store.get("Documents(2)/$value");
        CHECK(value.status() == 200 && value.content_type() == "application/pdf");
        CHECK(value.body() == bytes);
        CHECK(status_thrown_by([&] { store.stream_file("Documents(99)"); }) == OOD_NOTFOUND);
        CHECK(status_thrown_by([&] { store.stream_file("Notes(1)/$value"); }) == OOD_SEMANTIC);

        write_file(base + "/a.txt", "first content");
        write_file(base + "/b.txt", "the replacement, longer");
        ood::Result created = store.create_media("Documents", base + "/a.txt", "text/plain", R"({"title":"from C++"})");
        CHECK(created.status() == 201);
        store.replace_stream("Documents(-1)", base + "/b.txt", "text/plain");  // goes with the create
        store.replace_stream("Documents(1)", base + "/a.txt", "text/markdown");
        CHECK(status_thrown_by([&] { store.replace_stream("Documents(99)", base + "/a.txt", "text/plain"); }) == OOD_NOTFOUND);
        ood::Store::UploadCounts counts = store.upload();
        CHECK(counts.sent == 2 && counts.archived == 0);
        CHECK(store.get("Documents(4)/$value").body() == "the replacement, longer");
        CHECK(store.get("Documents(1)/$value").body() == "first content");
        CHECK(store.stream_file("Documents(1)").content_type == "text/markdown");
        CHECK(store.check_store().find("\"stream\"") == std::string::npos);

        // V4 stream properties: read as files and as answers, replaced and uploaded as a PUT.
        ood::Options visit_options;
        visit_options.path(base + "/visits.store").service_root(argv[1]);
        visit_options.defining_request_streams("Inspections", "Inspections");
        ood::Store visits = ood::Store::open(visit_options);
        ood::Store::StreamFile photo = visits.stream_file("Inspections(1)/photo");
        CHECK(photo.length == 70000 && photo.content_type == "image/jpeg");
        CHECK(file_text(photo.path).size() == 70000);
        CHECK(visits.get("Inspections(2)/signature").body().size() == 300);
        CHECK(status_thrown_by([&] { visits.stream_file("Inspections(3)/signature"); }) == OOD_NOTFOUND);
        write_file(base + "/photo.png", "a new photo from C++");
        visits.replace_stream("Inspections(2)/photo", base + "/photo.png", "image/png");
        CHECK(visits.get("Inspections(2)/photo").body() == "a new photo from C++");
        ood::Store::UploadCounts sent = visits.upload();
        CHECK(sent.sent == 1 && sent.archived == 0);
        visits.download();
        CHECK(visits.get("Inspections(2)/photo").body() == "a new photo from C++");
        CHECK(visits.stream_file("Inspections(2)/photo").content_type == "image/png");
    } catch (const ood::Error &error) {
        std::fprintf(stderr, "test_media.cpp: unexpected error %d: %s\n", static_cast<int>(error.status()), error.what());
        ++failed;
    }
    std::printf("cpp media: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
