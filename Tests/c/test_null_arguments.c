/* Every pointer argument of every function in the header, given NULL: a function answers
 * OOD_MISUSE with a message naming the argument, or does what the header documents for NULL
 * (a no-op for the free functions, "" or 0 for the result accessors, nothing stored for an
 * optional out-parameter). Out-parameters are reset to NULL/0 before a failure returns.
 * No service is needed: the store is an offline store made from the flight sample's $metadata.
 *
 *   test_null_arguments METADATA_FILE */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "offline_odata.h"
#include "check.h"
#include "under_key.h"
#include "read_file.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Checks a call answers OOD_MISUSE and that the error message names `argument`. */
#define MISUSE(call, argument)                                                        \
    do {                                                                              \
        CHECK((call) == OOD_MISUSE);                                                  \
        CHECK(strstr(ood_error_message(), argument) != NULL);                         \
    } while (0)

static void ignore_completion(ood_status status, ood_result *result, void *payload) {
    (void)status;
    (void)payload;
    ood_result_free(result);
}

static void ignore_event(int kind, const char *details, void *payload) {
    (void)kind;
    (void)details;
    (void)payload;
}

/* Completions of requests still pending when their store closed: each must come exactly once. */
static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;
/* Broadcast at each completion, for the wait in test_closing_with_requests_pending. */
static pthread_cond_t pending_changed = PTHREAD_COND_INITIALIZER;
static int pending_done = 0, pending_failed = 0;

static void count_pending(ood_status status, ood_result *result, void *payload) {
    (void)payload;
    ood_result_free(result);
    pthread_mutex_lock(&pending_lock);
    pending_done++;
    if (status != OOD_OK) pending_failed++;
    pthread_cond_broadcast(&pending_changed);
    pthread_mutex_unlock(&pending_lock);
}

/* Closing a store with requests in flight: every request completes once (answered, or with the
 * error of a closed store), and nothing runs after the completions (the process stays clean
 * under the sanitizers). A closed handle itself must not be used again: ood_store_close frees it. */
static void test_closing_with_requests_pending(ood_options *options) {
    ood_store *store = NULL;
    CHECK(ood_store_open_async(options, NULL, NULL, &store) == OOD_OK);
    enum { REQUESTS = 200 };
    for (int i = 0; i < REQUESTS; i++) {
        const char *url = i % 2 ? "TravelagencyCollection/$count" : "CarrierCollection?$top=1";
        CHECK(ood_request_async(store, "GET", url, NULL, count_pending, NULL) == OOD_OK);
    }
    CHECK(ood_store_close(store) == OOD_OK);
    /* Woken by each completion, for at most 30 s. A second completion of any request cannot come
     * after: ood_store_close has returned, and it ends the store's threads (its lanes and the
     * event thread that runs completions) before it returns. */
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    pthread_mutex_lock(&pending_lock);
    while (pending_done < REQUESTS) {
        if (pthread_cond_timedwait(&pending_changed, &pending_lock, &deadline) != 0) break; /* 30 s passed */
    }
    CHECK(pending_done == REQUESTS);
    printf("closing with %d requests pending: %d answered, %d failed as closed\n", REQUESTS,
           pending_done - pending_failed, pending_failed);
    pthread_mutex_unlock(&pending_lock);
}

static void test_options(ood_options *options) {
    MISUSE(ood_options_new(NULL), "out");
    ood_options_free(NULL);
    MISUSE(ood_options_set_path(NULL, "x"), "options");
    MISUSE(ood_options_set_path(options, NULL), "NULL");
    MISUSE(ood_options_set_service_root(NULL, "http://h/"), "options");
    MISUSE(ood_options_set_service_root(options, NULL), "NULL");
    MISUSE(ood_options_set_metadata(NULL, "<x/>"), "options");
    MISUSE(ood_options_set_metadata(options, NULL), "NULL");
    MISUSE(ood_options_add_defining_request(NULL, "A", "B"), "options");
    MISUSE(ood_options_add_defining_request(options, NULL, "B"), "NULL");
    MISUSE(ood_options_add_defining_request(options, "A", NULL), "NULL");
    MISUSE(ood_options_add_index(NULL, "A", "b"), "options");
    MISUSE(ood_options_add_index(options, NULL, "b"), "NULL");
    MISUSE(ood_options_add_index(options, "A", NULL), "NULL");
    MISUSE(ood_options_set_mode(NULL, OOD_MODE_OFFLINE), "options");
    MISUSE(ood_options_set_basic_auth(NULL, "u", "p"), "options");
    MISUSE(ood_options_set_basic_auth(options, NULL, "p"), "NULL");
    MISUSE(ood_options_set_basic_auth(options, "u", NULL), "NULL");
    MISUSE(ood_options_set_bearer_token(NULL, "t"), "options");
    MISUSE(ood_options_set_bearer_token(options, NULL), "NULL");
    MISUSE(ood_options_add_header(NULL, "A", "B"), "options");
    MISUSE(ood_options_add_header(options, NULL, "B"), "NULL");
    MISUSE(ood_options_add_header(options, "A", NULL), "NULL");
    MISUSE(ood_options_set_timeouts(NULL, 1, 1), "options");
    /* ca_file and ca_path may be NULL (the system's); only options may not. */
    MISUSE(ood_options_set_tls(NULL, 1, NULL, NULL), "options");
    CHECK(ood_options_set_tls(options, 1, NULL, NULL) == OOD_OK);
    MISUSE(ood_options_add_cookie(NULL, "A", "B"), "options");
    MISUSE(ood_options_add_cookie(options, NULL, "B"), "NULL");
    MISUSE(ood_options_add_cookie(options, "A", NULL), "NULL");
    MISUSE(ood_options_set_page_size(NULL, 5), "options");
    MISUSE(ood_options_set_limits(NULL, 0, 0), "options");
    MISUSE(ood_options_set_limit(NULL, OOD_LIMIT_PAGES, 0), "options");
    MISUSE(ood_options_set_service_root_saved(NULL, 1), "options");
    MISUSE(ood_options_set_batch(NULL, 5, 0), "options");
    MISUSE(ood_options_set_accept_empty_file(NULL, 1), "options");
    MISUSE(ood_options_set_queue_compaction(NULL, 1), "options");
}

static void test_opening(ood_options *options) {
    ood_store *store = (ood_store *)options; /* not NULL, so the reset is visible */
    MISUSE(ood_store_open(NULL, &store), "path");
    CHECK(store == NULL);
    MISUSE(ood_store_open("x.store", NULL), "out");
    MISUSE(ood_store_open_with(NULL, &store), "options");
    MISUSE(ood_store_open_with(options, NULL), "out");
    MISUSE(ood_store_open_async(NULL, NULL, NULL, &store), "options");
    MISUSE(ood_store_open_async(options, NULL, NULL, NULL), "out");
    CHECK(ood_store_close(NULL) == OOD_OK);
}

static void test_store_functions(ood_store *store) {
    int number = 7;
    char *text = (char *)store;
    MISUSE(ood_store_format_version(NULL, &number), "store");
    MISUSE(ood_store_format_version(store, NULL), "out");
    MISUSE(ood_store_path(NULL, &text), "store");
    CHECK(text == NULL);
    MISUSE(ood_store_path(store, NULL), "out");

    ood_result *result = (ood_result *)store;
    MISUSE(ood_request(NULL, "GET", "TravelagencyCollection", NULL, &result), "store");
    CHECK(result == NULL);
    MISUSE(ood_request(store, NULL, "TravelagencyCollection", NULL, &result), "method");
    MISUSE(ood_request(store, "GET", NULL, NULL, &result), "url");
    MISUSE(ood_request(store, "GET", "TravelagencyCollection", NULL, NULL), "out");
    MISUSE(ood_request_with_headers(NULL, "GET", "TravelagencyCollection", NULL, NULL, &result), "store");
    MISUSE(ood_request_with_headers(store, NULL, "TravelagencyCollection", NULL, NULL, &result), "method");
    MISUSE(ood_request_with_headers(store, "GET", NULL, NULL, NULL, &result), "url");
    MISUSE(ood_request_with_headers(store, "GET", "TravelagencyCollection", NULL, NULL, NULL), "out");
    MISUSE(ood_request_in_transaction(NULL, "t", "GET", "TravelagencyCollection", NULL, NULL, &result), "store");
    MISUSE(ood_request_in_transaction(store, NULL, "GET", "TravelagencyCollection", NULL, NULL, &result), "transaction_id");
    MISUSE(ood_request_in_transaction(store, "", "GET", "TravelagencyCollection", NULL, NULL, &result), "transaction_id");
    MISUSE(ood_request_in_transaction(store, "t", NULL, "TravelagencyCollection", NULL, NULL, &result), "method");
    MISUSE(ood_request_in_transaction(store, "t", "GET", NULL, NULL, NULL, &result), "url");
    MISUSE(ood_request_in_transaction(store, "t", "GET", "TravelagencyCollection", NULL, NULL, NULL), "out");
    MISUSE(ood_request_unmerged(NULL, NULL, "GET", "TravelagencyCollection", NULL, NULL, &result), "store");
    MISUSE(ood_request_unmerged(store, "", "GET", "TravelagencyCollection", NULL, NULL, &result), "transaction_id");
    MISUSE(ood_request_unmerged(store, NULL, NULL, "TravelagencyCollection", NULL, NULL, &result), "method");
    MISUSE(ood_request_page(NULL, "TravelagencyCollection", NULL, &result), "store");
    CHECK(result == NULL);
    MISUSE(ood_request_page(store, NULL, NULL, &result), "url");
    MISUSE(ood_request_page(store, "TravelagencyCollection", NULL, NULL), "out");
    /* An offline read is whole, one page or not: it has no next link. */
    CHECK(ood_request_page(store, "TravelagencyCollection", NULL, &result) == OOD_OK);
    CHECK(ood_result_status(result) == 200 && ood_result_next_link(result) == NULL);
    ood_result_free(result);
    CHECK(ood_result_next_link(NULL) == NULL);
    /* body and headers may be NULL. */
    CHECK(ood_request_with_headers(store, "GET", "TravelagencyCollection/$count", NULL, NULL, &result) == OOD_OK);
    CHECK(ood_result_status(result) == 200 && strcmp(ood_result_body(result, NULL), "0") == 0);
    ood_result_free(result);

    MISUSE(ood_request_async(NULL, "GET", "TravelagencyCollection", NULL, ignore_completion, NULL), "store");
    MISUSE(ood_request_async(store, NULL, "TravelagencyCollection", NULL, ignore_completion, NULL), "method");
    MISUSE(ood_request_async(store, "GET", NULL, NULL, ignore_completion, NULL), "url");
    MISUSE(ood_request_async(store, "GET", "TravelagencyCollection", NULL, NULL, NULL), "completion");
    ood_call *call = (ood_call *)store;
    MISUSE(ood_request_start(NULL, "GET", "TravelagencyCollection", NULL, NULL, ignore_completion, NULL, &call), "store");
    CHECK(call == NULL);
    MISUSE(ood_request_start(store, NULL, "TravelagencyCollection", NULL, NULL, ignore_completion, NULL, &call), "method");
    MISUSE(ood_request_start(store, "GET", NULL, NULL, NULL, ignore_completion, NULL, &call), "url");
    MISUSE(ood_request_start(store, "GET", "TravelagencyCollection", NULL, NULL, NULL, NULL, &call), "completion");
    MISUSE(ood_call_cancel(NULL), "call");
    ood_call_free(NULL);

    CHECK(ood_result_status(NULL) == 0);
    size_t length = 3;
    CHECK(strcmp(ood_result_body(NULL, &length), "") == 0 && length == 0);
    CHECK(strcmp(ood_result_body(NULL, NULL), "") == 0);
    CHECK(strcmp(ood_result_content_type(NULL), "") == 0);
    CHECK(ood_result_header(NULL, "ETag") == NULL);
    /* An offline read of a collection: its Content-Type, no ETag; a NULL name is no header. */
    CHECK(ood_request(store, "GET", "TravelagencyCollection", NULL, &result) == OOD_OK);
    CHECK(ood_result_header(result, NULL) == NULL);
    CHECK(ood_result_header(result, "ETag") == NULL);
    CHECK(ood_result_header(result, "content-type") != NULL
          && strstr(ood_result_header(result, "content-type"), "application/json") != NULL);
    ood_result_free(result);
    CHECK(ood_error_header(NULL) == NULL);
    /* A failure that is no answer of the service has no HTTP status and no headers. */
    CHECK(ood_request(store, "GET", "NoSuchSet", NULL, &result) == OOD_SEMANTIC);
    CHECK(ood_error_http_status() == 0 && ood_error_header("Content-Type") == NULL);
    ood_result_free(NULL);

    int online = 5;
    MISUSE(ood_route(NULL, "GET", "TravelagencyCollection", &online, NULL), "store");
    CHECK(online == 0);
    MISUSE(ood_route(store, NULL, "TravelagencyCollection", &online, NULL), "method");
    MISUSE(ood_route(store, "GET", NULL, &online, NULL), "url");
    MISUSE(ood_route(store, "GET", "TravelagencyCollection", NULL, NULL), "is_online");
    CHECK(ood_route(store, "GET", "TravelagencyCollection", &online, NULL) == OOD_OK && online == 0);

    MISUSE(ood_download(NULL, NULL, NULL), "store");
    MISUSE(ood_download_with(NULL, NULL, 0, NULL, NULL), "store");
    char *download_json = (char *)store;
    MISUSE(ood_download_json(NULL, NULL, 0, NULL, NULL, &download_json), "store");
    CHECK(download_json == NULL);
    MISUSE(ood_download_json(store, NULL, 0, NULL, NULL, NULL), "json");
    download_json = (char *)store;
    MISUSE(ood_download_flags(NULL, NULL, 0, NULL, NULL, &download_json), "store");
    CHECK(download_json == NULL);
    MISUSE(ood_download_flags(store, NULL, 8, NULL, NULL, NULL), "flags");
    char *route_json = (char *)store;
    MISUSE(ood_route_json(NULL, "GET", "TravelagencyCollection", &route_json), "store");
    CHECK(route_json == NULL);
    MISUSE(ood_route_json(store, NULL, "TravelagencyCollection", &route_json), "method");
    MISUSE(ood_route_json(store, "GET", NULL, &route_json), "url");
    MISUSE(ood_route_json(store, "GET", "TravelagencyCollection", NULL), "json");
    long sent = 4, archived = 4;
    MISUSE(ood_upload(NULL, NULL, NULL, &sent, &archived), "store");
    CHECK(sent == 0 && archived == 0);

    ood_subscription *subscription = (ood_subscription *)store;
    MISUSE(ood_subscribe(NULL, ignore_event, NULL, &subscription), "store");
    CHECK(subscription == NULL);
    MISUSE(ood_subscribe(store, NULL, NULL, &subscription), "callback");
    MISUSE(ood_subscribe(store, ignore_event, NULL, NULL), "out");
    ood_subscription_free(NULL);

    char *json = (char *)store;
    MISUSE(ood_explain(NULL, "TravelagencyCollection", &json), "store");
    CHECK(json == NULL);
    MISUSE(ood_explain(store, NULL, &json), "url");
    MISUSE(ood_explain(store, "TravelagencyCollection", NULL), "json");
    MISUSE(ood_store_status(NULL, &json), "store");
    MISUSE(ood_store_status(store, NULL), "json");
    MISUSE(ood_store_sync_log(NULL, -1, &json), "store");
    CHECK(json == NULL);
    MISUSE(ood_store_sync_log(store, 10, NULL), "json");
    MISUSE(ood_store_check(NULL, 0, &json), "store");
    CHECK(json == NULL);
    MISUSE(ood_store_check(store, 1, NULL), "json");
    MISUSE(ood_error_archive(NULL, &json), "store");
    MISUSE(ood_error_archive(store, NULL), "json");
    MISUSE(ood_request_queue(NULL, &json), "store");
    MISUSE(ood_request_queue(store, NULL), "json");
    MISUSE(ood_upload_preview(NULL, &json), "store");
    CHECK(json == NULL);
    MISUSE(ood_upload_preview(store, NULL), "json");
    MISUSE(ood_queue_compact(NULL, &json), "store");
    MISUSE(ood_create_automatic_indexes(NULL, &json), "store");
    long deleted = 4;
    MISUSE(ood_error_archive_delete(NULL, -1, &deleted), "store");
    CHECK(deleted == 0);
    CHECK(ood_error_archive_delete(store, -1, NULL) == OOD_OK);
    long requeued = 4;
    MISUSE(ood_error_archive_requeue(NULL, 1, NULL, &requeued), "store");
    CHECK(requeued == 0);
    /* body and requeued may be NULL: an unknown id is not found. */
    CHECK(ood_error_archive_requeue(store, 1, NULL, NULL) == OOD_NOTFOUND);
    MISUSE(ood_metadata(NULL, &json), "store");
    MISUSE(ood_metadata(store, NULL), "json");
    MISUSE(ood_undo(NULL, "TravelagencyCollection('1')", &json), "store");
    MISUSE(ood_undo(store, NULL, &json), "url");
    MISUSE(ood_redownload(NULL, "TravelagencyCollection('1')", &json), "store");
    MISUSE(ood_redownload(store, NULL, &json), "url");
    /* Media streams (docs/MEDIA.md). */
    char *stream_path = (char *)"untouched";
    ood_int64 stream_length = 7;
    MISUSE(ood_stream_file(NULL, "TravelagencyCollection('1')", &stream_path, &stream_length, NULL), "store");
    CHECK(stream_path == NULL && stream_length == 0);
    MISUSE(ood_stream_file(store, NULL, &stream_path, NULL, NULL), "url");
    MISUSE(ood_stream_file(store, "TravelagencyCollection('1')", NULL, NULL, NULL), "path");
    ood_result *media = NULL;
    MISUSE(ood_stream_create(NULL, "TravelagencyCollection", "/tmp/x", "text/plain", NULL, &media), "store");
    CHECK(media == NULL);
    MISUSE(ood_stream_create(store, NULL, "/tmp/x", "text/plain", NULL, &media), "entity_set");
    MISUSE(ood_stream_create(store, "TravelagencyCollection", NULL, "text/plain", NULL, &media), "file_path");
    MISUSE(ood_stream_create(store, "TravelagencyCollection", "/tmp/x", NULL, NULL, &media), "content_type");
    MISUSE(ood_stream_create(store, "TravelagencyCollection", "/tmp/x", "text/plain", NULL, NULL), "out");
    MISUSE(ood_check_service(NULL, &json), "store");
    MISUSE(ood_check_service(store, NULL), "json");
    MISUSE(ood_adopt_service_model(NULL, NULL, &json), "store");
    MISUSE(ood_adopt_service_model(store, "sideways", &json), "choice");
    /* json may be NULL for undo: the outcome is not wanted. */
    CHECK(ood_request(store, "POST", "TravelagencyCollection", "{\"agencynum\":\"00000001\",\"name\":\"N\"}", &result) == OOD_OK);
    ood_result_free(result);
    CHECK(ood_undo(store, "TravelagencyCollection('00000001')", NULL) == OOD_OK);
    CHECK(ood_request(store, "GET", "TravelagencyCollection/$count", NULL, &result) == OOD_OK);
    CHECK(strcmp(ood_result_body(result, NULL), "0") == 0);
    ood_result_free(result);

    ood_string_free(NULL);
    CHECK(ood_status_name(-1) != NULL && ood_status_name(9999) != NULL);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s METADATA_FILE\n", argv[0]);
        return 2;
    }
    char *metadata = read_file(argv[1]);
    char folder[] = "/tmp/ood-c-null-XXXXXX";
    if (!metadata || !mkdtemp(folder)) {
        fprintf(stderr, "cannot read %s or make a folder\n", argv[1]);
        return 2;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/null.store", folder);
    ood_options *options = NULL;
    CHECK(ood_options_new(&options) == OOD_OK);
    test_options(options);
    MISUSE(ood_options_add_defining_request_streams(NULL, "A", "TravelagencyCollection"), "options");
    MISUSE(ood_options_add_defining_request_streams(options, NULL, "TravelagencyCollection"), "name");
    MISUSE(ood_options_add_defining_request_streams(options, "A", NULL), "url");
    MISUSE(ood_options_set_stream_limits(NULL, 0, 0), "options");
    CHECK(ood_options_set_path(options, path) == OOD_OK);
    CHECK(ood_options_set_metadata(options, metadata) == OOD_OK);
    CHECK(ood_options_set_mode(options, OOD_MODE_OFFLINE) == OOD_OK);
    test_opening(options);
    ood_store *store = NULL;
    CHECK(ood_store_open_with(options, &store) == OOD_OK && store != NULL);
    if (store) test_store_functions(store);
    ood_store_close(store);
    test_closing_with_requests_pending(options);
    ood_options_free(options);
    free(metadata);
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    if (system(command) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_summary("c_null_arguments");
}
