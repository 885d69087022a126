// The C++17 wrapper (include/offline_odata.hpp) against the real V4 test service, whose root is the
// last argument (Tests/scripts/with_backend.sh starts it; the first is the flight sample's $metadata): RAII handles that move and never copy,
// ood::Error with status, message, offset and the HTTP status and headers of a refusal,
// std::function progress and event callbacks, std::future answers.
// Under OOD_TEST_STORE_KEY every store opens with that key (make test-encrypted): included
// before the wrapper, so the wrapper's own calls take it.
#include "../c/under_key.h"
#include "offline_odata.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <unistd.h>
#include <vector>

namespace {

int passed = 0;
int failed = 0;

void check_that(bool condition, const char *what, int line) {
    if (condition) {
        ++passed;
    } else {
        ++failed;
        std::fprintf(stderr, "test_wrapper.cpp:%d: check failed: %s\n", line, what);
    }
}
#define CHECK(cond) check_that((cond), #cond, __LINE__)

// Handles own their C handle: they move, and never copy.
static_assert(!std::is_copy_constructible_v<ood::Store> && std::is_nothrow_move_constructible_v<ood::Store>);
static_assert(!std::is_copy_assignable_v<ood::Store> && std::is_nothrow_move_assignable_v<ood::Store>);
static_assert(!std::is_copy_constructible_v<ood::Result> && std::is_nothrow_move_constructible_v<ood::Result>);
static_assert(!std::is_copy_constructible_v<ood::Options> && std::is_move_constructible_v<ood::Options>);
static_assert(!std::is_copy_constructible_v<ood::Subscription> && std::is_nothrow_move_constructible_v<ood::Subscription>);
static_assert(!std::is_copy_constructible_v<ood::Call> && std::is_move_constructible_v<ood::Call>);

std::string folder;
std::string service_root;
// The flight sample's $metadata (the first argument), for a store made without a service.
std::string sample_metadata;

bool ends_with(std::string_view text, std::string_view end) {
    return text.size() >= end.size() && text.substr(text.size() - end.size()) == end;
}

ood::Options flight_options(const std::string &file, ood_mode mode) {
    ood::Options options;
    options.service_root(service_root).mode(mode).timeouts(10, 60);
    if (!file.empty()) {
        options.path(folder + "/" + file).defining_request("Agencies", "TravelagencyCollection?$filter=country eq 'US'");
    }
    return options;
}

/// Runs `body`, which must throw ood::Error; returns it (status OOD_OK when nothing was thrown).
template <typename Body>
ood::Error thrown_by(Body body) {
    try {
        body();
    } catch (const ood::Error &error) {
        return error;
    }
    return ood::Error(OOD_OK, "nothing was thrown");
}

void test_options_refuse_bad_input() {
    ood::Options options;
    ood::Error error = thrown_by([&] { options.service_root("not a url"); });
    CHECK(error.status() == OOD_MISUSE && !error.message().empty());
    CHECK(std::string(error.what()).find("OOD_MISUSE") != std::string::npos);
    error = thrown_by([&] { options.header("Bad Name", "x"); });
    CHECK(error.status() == OOD_MISUSE && error.http_status() == 0);
    // Options without a file or a service cannot open.
    error = thrown_by([&] { ood::Store::open(ood::Options()); });
    CHECK(error.status() == OOD_MISUSE);
}

void test_the_offline_loop(std::atomic<int> &upload_finished) {
    ood::Store store = ood::Store::open(flight_options("wrapper.store", OOD_MODE_MIXED));
    ood::Subscription subscription = store.subscribe([&](int kind, std::string_view details) {
        if (kind == OOD_EVENT_UPLOAD_FINISHED && details.find("error") == std::string_view::npos) ++upload_finished;
    });

    ood::Result read = store.get("TravelagencyCollection('00000001')");
    CHECK(read.status() == 200);
    CHECK(read.body().find("\"agencynum\":\"00000001\"") != std::string_view::npos);
    CHECK(read.etag().has_value() && read.etag()->substr(0, 3) == "W/\"");
    CHECK(read.header("content-type").has_value() && read.content_type().find("json") != std::string_view::npos);
    CHECK(!read.location().has_value() && !read.next_link().has_value());

    std::string body = R"({"agencynum":"99000301","name":"Wrapper C++","city":"Boston","country":"US"})";
    ood::Result created = store.request("POST", "TravelagencyCollection", std::string_view(body));
    CHECK(created.status() == 201);
    CHECK(created.location().has_value() && *created.location() == service_root + "TravelagencyCollection('99000301')");
    CHECK(store.request_queue().find("99000301") != std::string::npos);
    // The upload's preview: the create, sent alone after the CSRF fetch; nothing leaves the queue.
    std::string preview = store.upload_preview();
    CHECK(preview.find(R"("kind":"send")") != std::string::npos && preview.find("99000301") != std::string::npos);
    CHECK(store.request_queue().find("99000301") != std::string::npos);

    // A syntax error: status, message and the offset of the fault.
    ood::Error error = thrown_by([&] { store.get("TravelagencyCollection?$filter=name eq"); });
    CHECK(error.status() == OOD_SYNTAX && error.offset() >= 0 && error.http_status() == 0);

    long progress_calls = 0;
    ood::Store::UploadCounts counts = store.upload([&](long done, long total) {
        ++progress_calls;
        CHECK(done >= 0 && total >= done);
        return false;
    });
    CHECK(counts.sent == 1 && counts.archived == 0);
    CHECK(progress_calls >= 1);

    // The future of an asynchronous read.
    std::future<ood::Result> count = store.request_async("GET", "TravelagencyCollection('99000301')");
    ood::Result answer = count.get();
    CHECK(answer.status() == 200 && answer.body().find("Wrapper C++") != std::string_view::npos);

    // A progress callback that asks to stop: OOD_ABORTED; one that throws: its exception comes back.
    error = thrown_by([&] { store.download([](long, long) { return true; }); });
    CHECK(error.status() == OOD_ABORTED);
    bool rethrown = false;
    try {
        store.download({"Agencies"}, true, [](long, long) -> bool { throw std::runtime_error("stop from the callback"); });
    } catch (const std::runtime_error &thrown) {
        rethrown = std::string(thrown.what()) == "stop from the callback";
    }
    CHECK(rethrown);
    store.download({"Agencies"}, true);
    CHECK(store.status().find("\"queuedRequests\":0") != std::string::npos);
    // The sync log, newest first: the last download of Agencies succeeded.
    std::string log = store.sync_log(1);
    CHECK(log.find("\"kind\":\"download\",\"definingRequest\":\"Agencies\"") != std::string::npos);
    CHECK(log.find("\"outcome\":\"succeeded\"") != std::string::npos);
    CHECK(store.sync_log().find("\"kind\":\"upload\"") != std::string::npos);
    CHECK(store.check_store(true) == "[]");
    CHECK(store.route("GET", "TravelagencyCollection").find("\"destination\":\"offline\"") != std::string::npos);

    // Moving keeps one owner: the moved-from store has no handle, and says so instead of crashing.
    ood::Store moved = std::move(store);
    CHECK(moved.get() != nullptr && store.get() == nullptr);  // NOLINT(bugprone-use-after-move): the point
    error = thrown_by([&] { store.get("TravelagencyCollection"); });
    CHECK(error.status() == OOD_MISUSE);
    CHECK(moved.get("TravelagencyCollection('99000301')").status() == 200);

    for (int i = 0; i < 500 && upload_finished.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    subscription.end();
}

// Issue 22: one kind of handle. A store made and downloaded with options, reopened with
// Store::open(path) alone, answers as its file describes it: an offline read, a local write, its
// status and an upload to the service root the file keeps.
void test_a_store_reopened_from_its_file_alone() {
    ood::Store::open(flight_options("from-file.store", OOD_MODE_MIXED)).close();
    ood::Store store = ood::Store::open(folder + "/from-file.store");
    CHECK(store.get("TravelagencyCollection?$filter=country eq 'US'").body().find("\"country\":\"US\"") != std::string_view::npos);
    CHECK(store.route("GET", "TravelagencyCollection").find("\"destination\":\"offline\"") != std::string::npos);
    std::string body = R"({"agencynum":"99000304","name":"From File C++","city":"Boston","country":"US"})";
    CHECK(store.request("POST", "TravelagencyCollection", std::string_view(body)).status() == 201);
    std::string status = store.status();
    CHECK(status.find("\"queuedRequests\":1") != std::string::npos && status.find("\"serviceRoot\":\"http") != std::string::npos);
    ood::Store::UploadCounts counts = store.upload();
    CHECK(counts.sent == 1 && counts.archived == 0);
}

// A store made from $metadata alone keeps no service root: reopened from its file, it reads, writes
// and tells its status, and its upload fails saying what is missing.
void test_a_store_file_without_a_service_root() {
    CHECK(!sample_metadata.empty());
    std::string path = folder + "/no-root.store";
    ood::Options options;
    options.path(path).metadata(sample_metadata).defining_request("Agencies", "TravelagencyCollection");
    ood::Store::open(options).close();
    ood::Store store = ood::Store::open(path);
    std::string body = R"({"agencynum":"99000305","name":"No Root C++","city":"Boston","country":"US"})";
    CHECK(store.request("POST", "TravelagencyCollection", std::string_view(body)).status() == 201);
    CHECK(store.get("TravelagencyCollection('99000305')").body().find("No Root C++") != std::string_view::npos);
    CHECK(store.status().find("\"serviceRoot\":null") != std::string::npos);
    ood::Error error = thrown_by([&] { store.upload(); });
    CHECK(error.status() == OOD_MISUSE && error.message().find("no service root") != std::string::npos);
    CHECK(error.message().find("ood_options_set_service_root") != std::string::npos);
    CHECK(store.request_queue().find("99000305") != std::string::npos);
}

// An encrypted store reopened from its file alone with its key (Store::open(path, key)): a wrong
// key, or none, is OOD_KEY.
void test_an_encrypted_store_reopened_from_its_file_alone() {
    CHECK(!sample_metadata.empty());
    std::string path = folder + "/keyed.store";
    unsigned char bytes[32];
    for (int i = 0; i < 32; ++i) bytes[i] = static_cast<unsigned char>(3 * i + 1);
    ood::Options options;
    options.path(path).metadata(sample_metadata).key(bytes, sizeof bytes);
    {
        ood::Store store = ood::Store::open(options);
        std::string body = R"({"agencynum":"99000306","name":"Keyed C++","city":"Boston","country":"US"})";
        CHECK(store.request("POST", "TravelagencyCollection", std::string_view(body)).status() == 201);
    }
    ood::Options key;
    key.key(bytes, sizeof bytes);
    ood::Store store = ood::Store::open(path, key);
    CHECK(store.get("TravelagencyCollection('99000306')").body().find("Keyed C++") != std::string_view::npos);
    store.close();
    ood::Options wrong;
    wrong.passphrase("not the key");
    CHECK(thrown_by([&] { ood::Store::open(path, wrong); }).status() == OOD_KEY);
    CHECK(thrown_by([&] { ood::Store::open(path); }).status() == OOD_KEY);
}

// A shared device through the wrapper (docs/SHARED-DEVICE.md): a store bound to alice refuses bob
// (OOD_OTHER_USER) until it is handed over; discarding records alice's change; bob's store holds none of hers.
void test_a_store_handed_over_to_another_user() {
    CHECK(!sample_metadata.empty());
    std::string path = folder + "/shared.store";
    ood::Options alice;
    alice.path(path).metadata(sample_metadata).user("alice");
    {
        ood::Store store = ood::Store::open(alice);
        std::string body = R"({"agencynum":"99000307","name":"Alice C++","city":"Boston","country":"US"})";
        CHECK(store.request("POST", "TravelagencyCollection", std::string_view(body)).status() == 201);
    }
    CHECK(ood::store_user(path) == std::optional<std::string>("alice"));
    ood::Options bob;
    bob.path(path).user("bob");
    ood::Error refused = thrown_by([&] { ood::Store::open(bob); });
    CHECK(refused.status() == OOD_OTHER_USER && refused.message().find("'alice'") != std::string::npos);
    CHECK(thrown_by([&] { ood::hand_over(path, nullptr, "bob", nullptr, "give-away"); }).status() == OOD_MISUSE);
    std::string outcome = ood::hand_over(path, nullptr, "bob", nullptr, "discard");
    CHECK(outcome.find(R"("discarded":1)") != std::string::npos);
    CHECK(ood::store_user(path) == std::optional<std::string>("bob"));
    ood::Store store = ood::Store::open(bob);
    CHECK(store.get("TravelagencyCollection").body().find("Alice C++") == std::string_view::npos);
    CHECK(store.discarded_changes().find("Alice C++") != std::string::npos);
}

// A watch through the wrapper (ood::Watch): the current answer, then a new one after each write,
// also after the open store was rekeyed (Store::rekey); its counts; nothing after stop().
void test_a_watch_delivers_and_goes_on_across_a_rekey_of_the_open_store() {
    CHECK(!sample_metadata.empty());
    std::string path = folder + "/watched.store";
    ood::Options options;
    options.path(path).metadata(sample_metadata).mode(OOD_MODE_OFFLINE);
    ood::Store store = ood::Store::open(options);
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::string> answers;
    ood::Watch watch = store.watch("TravelagencyCollection/$count", [&](ood_status status, std::string_view body) {
        std::lock_guard<std::mutex> lock(mutex);
        answers.push_back(status == OOD_OK ? std::string(body) : "error");
        changed.notify_all();
    });
    // Waits (up to 30 s) until the last answer is `expected`.
    auto last_is = [&](const std::string &expected) {
        std::unique_lock<std::mutex> lock(mutex);
        return changed.wait_for(lock, std::chrono::seconds(30), [&] { return !answers.empty() && answers.back() == expected; });
    };
    CHECK(last_is("0"));
    std::string body = R"({"agencynum":"99000401","name":"Watched C++","city":"Boston","country":"US"})";
    CHECK(store.request("POST", "TravelagencyCollection", std::string_view(body)).status() == 201);
    CHECK(last_is("1"));
    ood::Options key;
    key.passphrase("c++ words");
    store.rekey(&key);
    body = R"({"agencynum":"99000402","name":"Watched C++","city":"Boston","country":"US"})";
    CHECK(store.request("POST", "TravelagencyCollection", std::string_view(body)).status() == 201);
    CHECK(last_is("2"));
    auto [runs, deliveries] = watch.counts();
    CHECK(deliveries >= 3 && runs >= deliveries);
    watch.stop();
    std::size_t delivered = 0;
    {
        std::lock_guard<std::mutex> lock(mutex);
        delivered = answers.size();
    }
    body = R"({"agencynum":"99000403","name":"Watched C++","city":"Boston","country":"US"})";
    CHECK(store.request("POST", "TravelagencyCollection", std::string_view(body)).status() == 201);
    CHECK(store.get("TravelagencyCollection/$count").body() == "3");
    {
        std::lock_guard<std::mutex> lock(mutex);
        CHECK(answers.size() == delivered);
    }
    store.rekey(nullptr);
    store.close();
    ood::Store plain = ood::Store::open(path);
    CHECK(plain.get("TravelagencyCollection/$count").body() == "3");
    plain.close();
    CHECK(thrown_by([&] { ood::Store::open(path, key); }).status() == OOD_KEY);
}

// Each answer says what it holds (Result::kind and the names beside it): a collection, an entity,
// a property, a count, a raw value.
void test_answers_say_what_they_hold() {
    CHECK(!sample_metadata.empty());
    ood::Options options;
    options.path(folder + "/kinds.store").metadata(sample_metadata).defining_request("Agencies", "TravelagencyCollection");
    ood::Store store = ood::Store::open(options);
    std::string body = R"({"agencynum":"99000306","name":"Kinds C++","city":"Boston","country":"US"})";
    CHECK(store.request("POST", "TravelagencyCollection", std::string_view(body)).kind() == OOD_ANSWER_ENTITY);
    ood::Result collection = store.get("TravelagencyCollection");
    CHECK(collection.kind() == OOD_ANSWER_COLLECTION && collection.entity_set() == "TravelagencyCollection");
    CHECK(collection.entity_type() == "RMTSAMPLEFLIGHT.Travelagency" && !collection.property().has_value());
    ood::Result entity = store.get("TravelagencyCollection('99000306')");
    CHECK(entity.kind() == OOD_ANSWER_ENTITY && entity.entity_set() == "TravelagencyCollection");
    ood::Result property = store.get("TravelagencyCollection('99000306')/city");
    CHECK(property.kind() == OOD_ANSWER_PROPERTY && property.property() == "city" && property.property_type() == "Edm.String");
    CHECK(store.get("TravelagencyCollection/$count").kind() == OOD_ANSWER_COUNT);
    ood::Result value = store.get("TravelagencyCollection('99000306')/city/$value");
    CHECK(value.kind() == OOD_ANSWER_VALUE && value.body() == "Boston" && value.property() == "city");
}

void test_refusals_online() {
    ood::Store store = ood::Store::open(flight_options("", OOD_MODE_ONLINE));
    std::string body = R"({"agencynum":"99000302","name":"Wrapper Online","country":"US"})";
    ood::Result created = store.request("POST", "TravelagencyCollection", std::string_view(body));
    CHECK(created.status() == 201 && created.location().has_value()
          && ends_with(*created.location(), "TravelagencyCollection('99000302')"));

    // 404 from the service, through a future: the error carries status and headers.
    ood::Call call = store.start("GET", "TravelagencyCollection('99999999')");
    ood::Error error = thrown_by([&] { call.result.get(); });
    CHECK(error.status() == OOD_NOTFOUND && error.http_status() == 404);
    CHECK(error.header("Content-Type").has_value() && error.header("content-type")->find("json") != std::string::npos);
    CHECK(!error.header("X-Nothing").has_value());
    call.cancel();  // harmless after completion

    // 412: an update with an If-Match that is not the entity's ETag.
    error = thrown_by([&] {
        store.request("PATCH", "TravelagencyCollection('00000002')", std::string_view(R"({"name":"Stale"})"),
                      {"If-Match: W/\"999\""});
    });
    CHECK(error.status() == OOD_HTTP && error.http_status() == 412);
    CHECK(error.message().find("412") != std::string::npos);
    // With the ETag read just now, the same update goes through.
    ood::Result read = store.get("TravelagencyCollection('00000002')");
    CHECK(read.etag().has_value());
    std::string if_match = "If-Match: " + std::string(read.etag().value_or(""));
    ood::Result updated = store.request("PATCH", "TravelagencyCollection('00000002')",
                                        std::string_view(R"({"name":"Fresh"})"), {if_match});
    CHECK(updated.status() == 200 || updated.status() == 204);
}

/// Another writer's change on the service (If-Match: *), through a store of its own online.
void change_online(const std::string &url, std::string_view body) {
    ood::Store online = ood::Store::open(flight_options("", OOD_MODE_ONLINE));
    online.request("PATCH", url, body, {"If-Match: *"});
}

bool has(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// Conflict policies (issue 37) through the wrapper: the store's policies, server wins recorded,
// a resolver's merged body sent, and a resolver that throws: its conflict archived, the exception back.
void test_conflict_policies_and_a_resolver() {
    ood::Store store = ood::Store::open(flight_options("conflicts.store", OOD_MODE_MIXED));
    store.download();
    ood::Result first = store.get("TravelagencyCollection?$filter=agencynum lt '9'&$orderby=agencynum desc&$top=1&$select=agencynum");
    std::string_view answer = first.body();
    size_t at = answer.find("\"agencynum\":\"");
    CHECK(at != std::string_view::npos);
    if (at == std::string_view::npos) return;
    std::string url = "TravelagencyCollection('" + std::string(answer.substr(at + 13, 8)) + "')";

    store.set_conflict_policy("clientWins");
    store.set_conflict_policy("serverWins", "TravelagencyCollection");
    CHECK(thrown_by([&] { store.set_conflict_policy("serverWins", "NoSuchSet"); }).status() == OOD_NOTFOUND);
    CHECK(thrown_by([&] { store.set_conflict_policy("sometimes"); }).status() == OOD_MISUSE);
    std::string policies = store.conflict_policies();
    CHECK(has(policies, R"("default":"clientWins")") && has(policies, R"("TravelagencyCollection":"serverWins")"));

    // Server wins (the set's policy): dropped, recorded, the store has the service's name.
    store.request("PATCH", url, std::string_view(R"({"name":"Cpp Local"})"));
    change_online(url, R"({"name":"Cpp Service"})");
    std::string outcome = store.upload_resolving();
    CHECK(has(outcome, R"("discarded":1)") && has(outcome, R"("sent":0)"));
    CHECK(has(store.get(url).body(), "Cpp Service"));
    std::string discarded = store.discarded_changes();
    CHECK(has(discarded, R"("local":{"name":"Cpp Local"})") && has(discarded, R"("changedBy":"both")"));
    CHECK(store.clear_discarded_changes() == 1 && !has(store.discarded_changes(), "Cpp Local"));

    // A resolver over the upload's policy: it sees the three versions once; its merged body is sent.
    store.request("PATCH", url, std::string_view(R"({"name":"Cpp Local 2"})"));
    change_online(url, R"({"name":"Cpp Service 2"})");
    int calls = 0;
    std::string seen;
    outcome = store.upload_resolving("archive", [&](std::string_view versions) {
        ++calls;
        seen = std::string(versions);
        return ood::Store::ConflictAnswer{OOD_CONFLICT_MERGED_BODY, R"({"name":"Cpp Merged"})"};
    });
    CHECK(has(outcome, R"("sent":1)") && calls == 1);
    CHECK(has(seen, R"("local":{"name":"Cpp Local 2"})") && has(seen, "Cpp Service 2") && has(seen, R"("original":{)"));
    CHECK(has(store.get(url).body(), "Cpp Merged"));

    // A resolver that throws: the conflict is archived (nothing lost), the exception comes back.
    store.request("PATCH", url, std::string_view(R"({"name":"Cpp Local 3"})"));
    change_online(url, R"({"name":"Cpp Service 3"})");
    bool thrown = false;
    try {
        store.upload_resolving(std::nullopt, [](std::string_view) -> ood::Store::ConflictAnswer {
            throw std::runtime_error("the resolver gives up");
        });
    } catch (const std::runtime_error &error) {
        thrown = std::string(error.what()) == "the resolver gives up";
    }
    CHECK(thrown);
    std::string archive = store.error_archive();
    CHECK(has(archive, R"("kind":"conflict")") && has(archive, "Cpp Local 3"));

    // Alternate keys, by which a create whose answer was lost is read back.
    CHECK(store.alternate_keys() == "{}");
    store.set_alternate_key("TravelagencyCollection", "name");
    CHECK(store.alternate_keys() == R"({"TravelagencyCollection":[["name"]]})");
    CHECK(thrown_by([&] { store.set_alternate_key("TravelagencyCollection", "nosuch"); }).status() == OOD_SEMANTIC);
}

}  // namespace

int main(int argc, char **argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s [METADATA_XML] SERVICE_ROOT (Tests/scripts/with_backend.sh starts the V4 service)\n", argv[0]);
        return 2;
    }
    service_root = argv[argc - 1];
    if (argc >= 3) {
        std::ifstream file(argv[1], std::ios::binary);
        std::stringstream text;
        text << file.rdbuf();
        sample_metadata = text.str();
    }
    char pattern[] = "/tmp/ood-cpp-wrapper-XXXXXX";
    if (mkdtemp(pattern) == nullptr) return 2;
    folder = pattern;

    try {
        std::atomic<int> upload_finished{0};
        test_options_refuse_bad_input();
        test_the_offline_loop(upload_finished);
        CHECK(upload_finished.load() >= 1);
        test_refusals_online();
        test_a_store_reopened_from_its_file_alone();
        test_a_store_file_without_a_service_root();
        test_answers_say_what_they_hold();
        test_conflict_policies_and_a_resolver();
        // These two give their stores keys of their own: not under the suite's key.
        unsigned char suite_key[32];
        if (!under_key_bytes(suite_key)) {
            test_an_encrypted_store_reopened_from_its_file_alone();
            test_a_watch_delivers_and_goes_on_across_a_rekey_of_the_open_store();
            test_a_store_handed_over_to_another_user();
        }
    } catch (const ood::Error &error) {
        ++failed;
        std::fprintf(stderr, "unexpected ood::Error: %s (HTTP %d)\n", error.what(), error.http_status());
    }

    std::string cleanup = "rm -rf '" + folder + "'";
    if (std::system(cleanup.c_str()) != 0) std::fprintf(stderr, "could not remove %s\n", folder.c_str());
    std::printf("cpp_wrapper: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
