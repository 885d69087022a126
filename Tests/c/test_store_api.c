/* The C test of the store API (open, requests, route, download, upload, callbacks) against the
 * real V4 test service, whose root is the last argument (Tests/scripts/with_backend.sh starts it);
 * the first argument is the flight sample's $metadata, for a store made without a service. */
#define _DEFAULT_SOURCE /* mkdtemp, clock_gettime */
#include "offline_odata.h"
#include "check.h"
#include "under_key.h"
#include "read_file.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char folder[] = "/tmp/ood-c-api-XXXXXX";
static const char *service_root = NULL;
/* The flight sample's $metadata (the first argument), for a store made without a service. */
static char *sample_metadata = NULL;

/* A completion's outcome, handed from the library's thread to the test's. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* broadcast at each change, for the waits */
    int calls;
    ood_status status;
    ood_result *result;
    ood_status nested_blocking; /* what a blocking call from inside the callback returned */
    int nested_async_calls;
    ood_store *store;           /* for callbacks that call back into their store */
} outcome;

static void outcome_init(outcome *o, ood_store *store) {
    memset(o, 0, sizeof *o);
    pthread_mutex_init(&o->lock, NULL);
    pthread_cond_init(&o->changed, NULL);
    o->status = -1;
    o->nested_blocking = -1;
    o->store = store;
}

static void record(ood_status status, ood_result *result, void *payload) {
    outcome *o = payload;
    pthread_mutex_lock(&o->lock);
    o->calls++;
    o->status = status;
    if (o->result) ood_result_free(o->result);
    o->result = result;
    pthread_cond_broadcast(&o->changed);
    pthread_mutex_unlock(&o->lock);
}

static void nested_done(ood_status status, ood_result *result, void *payload) {
    outcome *o = payload;
    ood_result_free(result);
    pthread_mutex_lock(&o->lock);
    if (status == OOD_OK) o->nested_async_calls++;
    pthread_cond_broadcast(&o->changed);
    pthread_mutex_unlock(&o->lock);
}

/* A completion that calls back into its own store: blocking gets OOD_BUSY, async runs. */
static void reentrant(ood_status status, ood_result *result, void *payload) {
    outcome *o = payload;
    ood_result *inner = NULL;
    ood_status blocking = ood_request(o->store, "GET", "TravelagencyCollection/$count", NULL, &inner);
    ood_status async = ood_request_async(o->store, "GET", "TravelagencyCollection/$count", NULL, nested_done, o);
    pthread_mutex_lock(&o->lock);
    o->nested_blocking = blocking;
    o->calls++;
    o->status = async == OOD_OK ? status : async;
    o->result = result;
    pthread_cond_broadcast(&o->changed);
    pthread_mutex_unlock(&o->lock);
    CHECK(inner == NULL);
}

/* Waits up to `seconds` until `*counter`, guarded by `lock`, reaches `count`: woken by each
 * broadcast of `changed`, so it returns as soon as it does. 0 when the time passed first. */
static int wait_count(pthread_mutex_t *lock, pthread_cond_t *changed, const int *counter, int count, int seconds) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += seconds;
    pthread_mutex_lock(lock);
    while (*counter < count) {
        if (pthread_cond_timedwait(changed, lock, &deadline) != 0) break;
    }
    int reached = *counter >= count;
    pthread_mutex_unlock(lock);
    return reached;
}

/* Waits up to 60 s for `count` completions. */
static int wait_calls(outcome *o, int count) {
    return wait_count(&o->lock, &o->changed, &o->calls, count, 60);
}

/* Events seen by a subscriber: kinds counted, the last details kept. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* broadcast at each event, for the waits */
    int counts[16];
    char last_changed[256];
} event_log;

static void on_event(int kind, const char *details, void *payload) {
    event_log *log = payload;
    pthread_mutex_lock(&log->lock);
    if (kind > 0 && kind < 16) log->counts[kind]++;
    if (kind == OOD_EVENT_ENTITY_SETS_CHANGED) snprintf(log->last_changed, sizeof log->last_changed, "%s", details);
    pthread_cond_broadcast(&log->changed);
    pthread_mutex_unlock(&log->lock);
}

static int event_count(event_log *log, int kind) {
    pthread_mutex_lock(&log->lock);
    int count = log->counts[kind];
    pthread_mutex_unlock(&log->lock);
    return count;
}

static ood_options *flight_options(const char *name, int mode) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", folder, name);
    ood_options *options = NULL;
    CHECK(ood_options_new(&options) == OOD_OK);
    CHECK(ood_options_set_path(options, path) == OOD_OK);
    CHECK(ood_options_set_service_root(options, service_root) == OOD_OK);
    CHECK(ood_options_add_defining_request(options, "Agencies", "TravelagencyCollection?$filter=country eq 'US'") == OOD_OK);
    CHECK(ood_options_set_mode(options, mode) == OOD_OK);
    CHECK(ood_options_set_timeouts(options, 10, 60) == OOD_OK);
    CHECK(ood_options_set_page_size(options, 5) == OOD_OK);
    return options;
}

static void test_options_errors(void) {
    ood_options *options = NULL;
    CHECK(ood_options_new(NULL) == OOD_MISUSE);
    CHECK(ood_options_new(&options) == OOD_OK && options != NULL);
    CHECK(ood_options_set_path(NULL, "x") == OOD_MISUSE);
    CHECK(ood_options_set_path(options, NULL) == OOD_MISUSE);
    CHECK(ood_options_set_path(options, "") == OOD_MISUSE);
    CHECK(ood_options_set_service_root(options, "not a url") == OOD_MISUSE);
    CHECK(strstr(ood_error_message(), "must be an absolute URL") != NULL);
    /* Only http and https, refused where given (issue 39), not when first used. */
    CHECK(ood_options_set_service_root(options, "file:///etc/") == OOD_MISUSE);
    CHECK(strstr(ood_error_message(), "must be an http or https URL") != NULL);
    CHECK(ood_options_set_service_root(options, "gopher://example.org/") == OOD_MISUSE);
    CHECK(ood_options_set_service_root(options, "ftp://example.org/odata/") == OOD_MISUSE);
    CHECK(ood_options_set_service_root(options, NULL) == OOD_MISUSE);
    CHECK(ood_options_set_metadata(options, NULL) == OOD_MISUSE);
    CHECK(ood_options_add_defining_request(options, "A", NULL) == OOD_MISUSE);
    CHECK(ood_options_add_defining_request(options, "", "TravelagencyCollection") == OOD_MISUSE);
    CHECK(ood_options_add_defining_request(options, "A", "TravelagencyCollection") == OOD_OK);
    CHECK(ood_options_add_defining_request(options, "A", "CarrierCollection") == OOD_MISUSE);
    CHECK(ood_options_set_mode(options, 7) == OOD_MISUSE);
    CHECK(ood_options_set_mode(NULL, OOD_MODE_ONLINE) == OOD_MISUSE);
    CHECK(ood_options_set_basic_auth(options, "user", NULL) == OOD_MISUSE);
    CHECK(ood_options_set_basic_auth(options, "user", "secret") == OOD_OK);
    CHECK(ood_options_set_bearer_token(options, NULL) == OOD_MISUSE);
    CHECK(ood_options_set_bearer_token(options, "token") == OOD_OK);
    CHECK(ood_options_add_header(options, "", "v") == OOD_MISUSE);
    CHECK(ood_options_add_header(options, "X-Test", "1") == OOD_OK);
    CHECK(ood_options_set_timeouts(options, 0, 10) == OOD_MISUSE);
    CHECK(ood_options_set_timeouts(options, 10, -1) == OOD_MISUSE);
    CHECK(ood_options_set_page_size(options, -1) == OOD_MISUSE);
    CHECK(ood_options_set_tls(NULL, 1, NULL, NULL) == OOD_MISUSE);
    CHECK(ood_options_set_tls(options, 1, "/etc/ssl/certs/ca-certificates.crt", NULL) == OOD_OK);
    CHECK(ood_options_add_cookie(options, "", "v") == OOD_MISUSE);
    CHECK(ood_options_add_cookie(options, "sap-usercontext", NULL) == OOD_MISUSE);
    CHECK(ood_options_add_cookie(options, "sap-usercontext", "sap-client=100") == OOD_OK);
    /* Issue 20: no header or cookie can carry a line break, a NUL or a second cookie. */
    CHECK(ood_options_add_header(options, "X-Test", "1\r\nX-Evil: 1") == OOD_MISUSE);
    CHECK(strstr(ood_error_message(), "ood_options_add_header") != NULL && strstr(ood_error_message(), "'X-Test'") != NULL);
    CHECK(ood_options_add_header(options, "X-Test\n", "1") == OOD_MISUSE);
    CHECK(ood_options_add_header(options, "X Test", "1") == OOD_MISUSE);
    CHECK(ood_options_add_cookie(options, "c", "1; admin=1") == OOD_MISUSE);
    CHECK(strstr(ood_error_message(), "ood_options_add_cookie") != NULL && strstr(ood_error_message(), "'c'") != NULL);
    CHECK(ood_options_add_cookie(options, "c=d", "1") == OOD_MISUSE);
    CHECK(ood_options_add_cookie(options, "c", "1\r\n") == OOD_MISUSE);
    CHECK(ood_options_set_limits(options, -1, 0) == OOD_MISUSE);
    CHECK(ood_options_set_limits(options, 0, -5) == OOD_MISUSE);
    CHECK(ood_options_set_limits(options, 0, 0) == OOD_OK);
    CHECK(ood_options_set_limit(options, OOD_LIMIT_METADATA_SIZE, -1) == OOD_MISUSE);
    CHECK(ood_options_set_limit(options, (ood_limit)99, 10) == OOD_MISUSE);
    CHECK(strstr(ood_error_message(), "99 is not a limit") != NULL);
    CHECK(ood_options_set_limit(options, OOD_LIMIT_EXPRESSION_OPERATORS, 20001) == OOD_MISUSE);
    CHECK(strstr(ood_error_message(), "lowered, not raised") != NULL);
    CHECK(ood_options_set_limit(options, OOD_LIMIT_REQUEST_DEPTH, 101) == OOD_MISUSE);
    CHECK(ood_options_set_limit(options, OOD_LIMIT_REQUEST_DEPTH, 50) == OOD_OK);
    CHECK(ood_options_set_limit(options, OOD_LIMIT_MESSAGE_LENGTH, 200) == OOD_OK);
    CHECK(ood_options_set_limit(options, OOD_LIMIT_METADATA_SIZE, 0) == OOD_OK);
    CHECK(ood_options_set_limit(options, OOD_LIMIT_VALUE_SIZE, 1 << 20) == OOD_OK);
    CHECK(ood_options_set_limit(options, OOD_LIMIT_VALUE_SIZE, -1) == OOD_MISUSE);
    CHECK(ood_options_set_batch(NULL, 10, 0) == OOD_MISUSE);
    CHECK(ood_options_set_batch(options, -1, 0) == OOD_MISUSE);
    CHECK(ood_options_set_batch(options, 0, 1) == OOD_MISUSE);
    CHECK(strstr(ood_error_message(), "needs $batch") != NULL);
    CHECK(ood_options_set_batch(options, 10, 1) == OOD_OK);
    CHECK(ood_options_set_queue_compaction(NULL, 1) == OOD_MISUSE);
    CHECK(ood_options_set_queue_compaction(options, 1) == OOD_OK);
    /* Neither a path nor a service root: nothing to open. */
    ood_store *store = (ood_store *)&options;
    CHECK(ood_store_open_with(options, &store) == OOD_MISUSE && store == NULL);
    CHECK(ood_store_open_with(NULL, &store) == OOD_MISUSE);
    CHECK(ood_store_open_with(options, NULL) == OOD_MISUSE);
    CHECK(ood_store_open_async(options, NULL, NULL, NULL) == OOD_MISUSE);
    ood_options_free(options);
    ood_options_free(NULL);
}

static void test_null_and_wrong_handles(void) {
    ood_result *result = (ood_result *)folder;
    CHECK(ood_request(NULL, "GET", "X", NULL, &result) == OOD_MISUSE && result == NULL);
    CHECK(ood_request_async(NULL, "GET", "X", NULL, record, NULL) == OOD_MISUSE);
    int online = 5;
    CHECK(ood_route(NULL, "GET", "X", &online, NULL) == OOD_MISUSE && online == 0);
    CHECK(ood_download(NULL, NULL, NULL) == OOD_MISUSE);
    long sent = 9, archived = 9;
    CHECK(ood_upload(NULL, NULL, NULL, &sent, &archived) == OOD_MISUSE && sent == 0 && archived == 0);
    CHECK(ood_result_status(NULL) == 0);
    size_t length = 7;
    CHECK(strcmp(ood_result_body(NULL, &length), "") == 0 && length == 0);
    CHECK(strcmp(ood_result_content_type(NULL), "") == 0);
    ood_result_free(NULL);
    CHECK(ood_request_with_headers(NULL, "GET", "X", NULL, NULL, &result) == OOD_MISUSE && result == NULL);
    ood_call *call = (ood_call *)folder;
    CHECK(ood_request_start(NULL, "GET", "X", NULL, NULL, record, NULL, &call) == OOD_MISUSE && call == NULL);
    CHECK(ood_call_cancel(NULL) == OOD_MISUSE);
    ood_call_free(NULL);
    char *json = (char *)folder;
    CHECK(ood_metadata(NULL, &json) == OOD_MISUSE && json == NULL);
    CHECK(ood_undo(NULL, "X('1')", NULL) == OOD_MISUSE);
    CHECK(ood_redownload(NULL, "X('1')", NULL) == OOD_MISUSE);

    /* A new file opened with ood_store_open has no model yet: it answers file-level questions only. */
    char path[512];
    snprintf(path, sizeof path, "%s/file-level.store", folder);
    ood_store *file_level = NULL;
    CHECK(ood_store_open(path, &file_level) == OOD_OK);
    CHECK(ood_request(file_level, "GET", "TravelagencyCollection", NULL, &result) == OOD_MISUSE);
    CHECK(strstr(ood_error_message(), "ood_store_open_with") != NULL);
    CHECK(ood_download(file_level, NULL, NULL) == OOD_MISUSE);
    CHECK(ood_metadata(file_level, &json) == OOD_MISUSE);
    ood_store_close(file_level);
}

/* Per-request headers, cancelling, the model, undo, re-download and $batch uploads. */
static void test_headers_cancel_metadata_undo_and_batch(void) {
    ood_options *options = flight_options("more.store", OOD_MODE_MIXED);
    CHECK(ood_options_set_batch(options, 50, 1) == OOD_OK);
    ood_store *store = NULL;
    /* A request held while the store opens is cancelled before it runs: OOD_ABORTED, exactly once. */
    CHECK(ood_store_open_async(options, NULL, NULL, &store) == OOD_OK);
    outcome cancelled;
    outcome_init(&cancelled, NULL);
    ood_call *call = NULL;
    CHECK(ood_request_start(store, "GET", "TravelagencyCollection", NULL, NULL, record, &cancelled, &call) == OOD_OK);
    CHECK(call != NULL && ood_call_cancel(call) == OOD_OK && ood_call_cancel(call) == OOD_OK);
    CHECK(wait_calls(&cancelled, 1) && cancelled.status == OOD_ABORTED && cancelled.result == NULL);
    ood_call_free(call);
    ood_options_free(options);

    /* Headers: good ones go through (online here), bad ones are refused before anything runs. */
    const char *headers[] = {"Accept-Language: en", "X-Trace:42", NULL};
    ood_result *result = NULL;
    CHECK(ood_request_with_headers(store, "GET", "GetAgencyDetails(agencynum='00000001')", NULL, headers, &result) == OOD_OK);
    CHECK(ood_result_status(result) == 200);
    ood_result_free(result);
    const char *no_name[] = {": value", NULL};
    CHECK(ood_request_with_headers(store, "GET", "TravelagencyCollection", NULL, no_name, &result) == OOD_MISUSE);
    const char *injected[] = {"X-A: 1\r\nX-B: 2", NULL};
    CHECK(ood_request_with_headers(store, "GET", "TravelagencyCollection", NULL, injected, &result) == OOD_MISUSE);
    CHECK(strstr(ood_error_message(), "headers[0]") != NULL && result == NULL);
    outcome started;
    outcome_init(&started, NULL);
    CHECK(ood_request_start(store, "GET", "TravelagencyCollection/$count", NULL, headers, NULL, NULL, NULL) == OOD_MISUSE);
    CHECK(ood_request_start(store, "GET", "TravelagencyCollection/$count", NULL, headers, record, &started, NULL) == OOD_OK);
    CHECK(wait_calls(&started, 1) && started.status == OOD_OK && ood_result_status(started.result) == 200);
    ood_result_free(started.result);

    /* The model, as JSON. */
    char *json = NULL;
    CHECK(ood_metadata(store, &json) == OOD_OK && json != NULL);
    CHECK(strstr(json, "\"name\":\"TravelagencyCollection\"") != NULL && strstr(json, "\"GetAgencyDetails\"") != NULL);
    ood_string_free(json);
    CHECK(ood_metadata(store, NULL) == OOD_MISUSE);

    /* Undo: a create disappears, an update gets the downloaded values back, the queue empties. */
    CHECK(ood_request(store, "POST", "TravelagencyCollection", "{\"agencynum\":\"99000077\",\"name\":\"Undone\",\"country\":\"US\"}",
                      &result) == OOD_OK);
    ood_result_free(result);
    CHECK(ood_undo(store, "TravelagencyCollection('99000077')", &json) == OOD_OK);
    CHECK(json != NULL && strstr(json, "\"action\":\"removed\"") != NULL && strstr(json, "\"droppedRequests\":1") != NULL);
    ood_string_free(json);
    CHECK(ood_request(store, "GET", "TravelagencyCollection('99000077')", NULL, &result) == OOD_NOTFOUND);
    CHECK(ood_request(store, "GET", "TravelagencyCollection?$top=1&$select=agencynum,name", NULL, &result) == OOD_OK);
    char agency[64] = "";
    const char *at = strstr(ood_result_body(result, NULL), "\"agencynum\":\"");
    CHECK(at != NULL);
    if (at) snprintf(agency, sizeof agency, "TravelagencyCollection('%.8s')", at + strlen("\"agencynum\":\""));
    ood_result_free(result);
    CHECK(ood_request(store, "PATCH", agency, "{\"name\":\"Changed offline\"}", &result) == OOD_OK);
    ood_result_free(result);
    CHECK(ood_undo(store, agency, NULL) == OOD_OK);
    CHECK(ood_request(store, "GET", agency, NULL, &result) == OOD_OK);
    CHECK(strstr(ood_result_body(result, NULL), "Changed offline") == NULL);
    ood_result_free(result);
    CHECK(ood_undo(store, "TravelagencyCollection('nope0000')", &json) == OOD_NOTFOUND && json == NULL);
    CHECK(ood_undo(store, "TravelagencyCollection", &json) == OOD_SEMANTIC);
    CHECK(ood_undo(store, NULL, &json) == OOD_MISUSE);

    /* Re-download: the service's version of one entity; refused while it has a queued change
       (which stays); not an entity, not in the store, NULL url: refused. */
    CHECK(ood_redownload(store, agency, &json) == OOD_OK);
    CHECK(json != NULL && strstr(json, "\"action\":\"updated\"") != NULL
          && strstr(json, "\"entitySet\":\"TravelagencyCollection\"") != NULL);
    ood_string_free(json);
    CHECK(ood_request(store, "PATCH", agency, "{\"name\":\"Kept offline\"}", &result) == OOD_OK);
    ood_result_free(result);
    CHECK(ood_redownload(store, agency, &json) == OOD_MISUSE && json == NULL);
    CHECK(strstr(ood_error_message(), "queued or archived requests") != NULL);
    CHECK(ood_request(store, "GET", agency, NULL, &result) == OOD_OK);
    CHECK(strstr(ood_result_body(result, NULL), "Kept offline") != NULL);
    ood_result_free(result);
    CHECK(ood_undo(store, agency, NULL) == OOD_OK);
    CHECK(ood_redownload(store, agency, NULL) == OOD_OK);
    CHECK(ood_redownload(store, "TravelagencyCollection('nope0000')", &json) == OOD_NOTFOUND && json == NULL);
    CHECK(ood_redownload(store, "TravelagencyCollection", &json) == OOD_SEMANTIC && json == NULL);
    CHECK(ood_redownload(store, NULL, &json) == OOD_MISUSE);

    /* Two creates in one transaction, uploaded as one change set of a $batch (ood_options_set_batch above). */
    CHECK(ood_request_in_transaction(store, "tx-1", "POST", "TravelagencyCollection",
                                     "{\"agencynum\":\"99000078\",\"name\":\"B1\",\"country\":\"US\"}", NULL, &result) == OOD_OK);
    CHECK(ood_result_status(result) == 201);
    ood_result_free(result);
    CHECK(ood_request_in_transaction(store, "tx-1", "POST", "TravelagencyCollection",
                                     "{\"agencynum\":\"99000079\",\"name\":\"B2\",\"country\":\"US\"}", headers, &result) == OOD_OK);
    ood_result_free(result);
    char *queue = NULL;
    CHECK(ood_request_queue(store, &queue) == OOD_OK && queue != NULL);
    CHECK(queue && strstr(queue, "\"transactionID\":\"tx-1\"") != NULL);
    CHECK(queue && strstr(strstr(queue, "\"transactionID\":\"tx-1\"") + 1, "\"transactionID\":\"tx-1\"") != NULL);
    ood_string_free(queue);
    /* The preview of that upload: one $batch with the transaction's change set; nothing leaves the queue. */
    char *preview = NULL;
    CHECK(ood_upload_preview(store, &preview) == OOD_OK && preview != NULL);
    CHECK(preview && strstr(preview, "\"batch\":true") != NULL);
    CHECK(preview && strstr(preview, "\"kind\":\"batch\"") != NULL);
    CHECK(preview && strstr(preview, "POST TravelagencyCollection HTTP/1.1") != NULL && strstr(preview, "99000079") != NULL);
    /* One change set of the two requests: [[id,id]]. */
    const char *sets = preview ? strstr(preview, "\"changeSets\":[[") : NULL;
    const char *comma = sets ? strchr(sets, ',') : NULL, *closing = sets ? strchr(sets, ']') : NULL;
    CHECK(comma != NULL && closing != NULL && comma < closing);
    ood_string_free(preview);
    CHECK(ood_request_queue(store, &queue) == OOD_OK && queue != NULL);
    CHECK(queue && strstr(queue, "99000078") != NULL && strstr(queue, "99000079") != NULL);
    ood_string_free(queue);
    long sent = -1, archived = -1;
    CHECK(ood_upload(store, NULL, NULL, &sent, &archived) == OOD_OK && sent == 2 && archived == 0);

    /* Queue compaction: a create and an update of one entity become one create with the final
       values; an update marked unmerged stays as it is; the service gets both. */
    CHECK(ood_request(store, "POST", "TravelagencyCollection",
                      "{\"agencynum\":\"99000077\",\"name\":\"C1\",\"country\":\"US\"}", &result) == OOD_OK);
    ood_result_free(result);
    CHECK(ood_request(store, "PATCH", "TravelagencyCollection('99000077')", "{\"name\":\"C2\"}", &result) == OOD_OK);
    ood_result_free(result);
    CHECK(ood_request_unmerged(store, NULL, "PATCH", "TravelagencyCollection('99000077')", "{\"city\":\"Salem\"}", NULL,
                               &result) == OOD_OK);
    ood_result_free(result);
    CHECK(ood_request_unmerged(store, "", "PATCH", "TravelagencyCollection('99000077')", "{}", NULL, &result) == OOD_MISUSE
          && result == NULL);
    CHECK(ood_queue_compact(store, &json) == OOD_OK && json != NULL);
    CHECK(json && strstr(json, "\"queued\":2,") != NULL && strstr(json, "\"cancelled\":[]") != NULL);
    ood_string_free(json);
    CHECK(ood_request_queue(store, &queue) == OOD_OK && queue != NULL);
    CHECK(queue && strstr(queue, "C2") != NULL && strstr(queue, "\"mergeable\":false") != NULL);
    ood_string_free(queue);
    CHECK(ood_queue_compact(store, NULL) == OOD_OK);
    CHECK(ood_queue_compact(NULL, &json) == OOD_MISUSE && json == NULL);
    CHECK(ood_upload(store, NULL, NULL, &sent, &archived) == OOD_OK && sent == 2 && archived == 0);

    /* Automatic indexes without a download: a shape read ten times gets its index, made by the
       store after the tenth read (a job of its own) or by the call, which runs after that job. */
    for (int i = 0; i < 10; i++) {
        CHECK(ood_request(store, "GET", "TravelagencyCollection?$filter=telephone eq '555-0199'", NULL, &result) == OOD_OK);
        ood_result_free(result);
    }
    CHECK(ood_create_automatic_indexes(store, &json) == OOD_OK && json != NULL && json[0] == '[');
    ood_string_free(json);
    char *indexed = NULL;
    CHECK(ood_store_status(store, &indexed) == OOD_OK && indexed != NULL);
    CHECK(indexed && strstr(indexed, "\"origin\":\"automatic\"") != NULL && strstr(indexed, "telephone") != NULL);
    ood_string_free(indexed);
    CHECK(ood_create_automatic_indexes(store, &json) == OOD_OK && json && strcmp(json, "[]") == 0);
    ood_string_free(json);
    CHECK(ood_create_automatic_indexes(store, NULL) == OOD_OK);

    /* The error archive: a create with a key the service already has (outside the store's US
       agencies, read from the service through an online store) is refused; sent again with
       another key it is taken; discarded, the entity leaves the store. */
    ood_options *online_options = NULL;
    CHECK(ood_options_new(&online_options) == OOD_OK);
    CHECK(ood_options_set_service_root(online_options, service_root) == OOD_OK);
    CHECK(ood_options_set_mode(online_options, OOD_MODE_ONLINE) == OOD_OK);
    ood_store *online_store = NULL;
    CHECK(ood_store_open_with(online_options, &online_store) == OOD_OK);
    ood_options_free(online_options);
    CHECK(ood_request(online_store, "GET", "TravelagencyCollection?$filter=country ne 'US'&$top=1&$select=agencynum", NULL,
                      &result) == OOD_OK);
    char taken[64] = "";
    at = strstr(ood_result_body(result, NULL), "\"agencynum\":\"");
    CHECK(at != NULL);
    if (at) snprintf(taken, sizeof taken, "%.8s", at + strlen("\"agencynum\":\""));
    ood_result_free(result);
    /* Deleted on the service: a re-download takes it out of the store. */
    const char *any_etag[] = {"If-Match: *", NULL};
    CHECK(ood_request_with_headers(online_store, "DELETE", "TravelagencyCollection('99000079')", NULL, any_etag,
                                   &result) == OOD_OK);
    ood_result_free(result);
    CHECK(ood_redownload(store, "TravelagencyCollection('99000079')", &json) == OOD_OK);
    CHECK(json != NULL && strstr(json, "\"action\":\"removed\"") != NULL);
    ood_string_free(json);
    CHECK(ood_request(store, "GET", "TravelagencyCollection('99000079')", NULL, &result) == OOD_NOTFOUND);
    ood_store_close(online_store);
    char clash[160];
    snprintf(clash, sizeof clash, "{\"agencynum\":\"%s\",\"name\":\"Clash\",\"country\":\"US\"}", taken);
    CHECK(ood_request(store, "POST", "TravelagencyCollection", clash, &result) == OOD_OK);
    ood_result_free(result);
    CHECK(ood_upload(store, NULL, NULL, &sent, &archived) == OOD_OK && sent == 0 && archived == 1);
    CHECK(ood_error_archive(store, &json) == OOD_OK && json != NULL);
    /* The service answers a key it has with 409: a conflict with its state, archived as one. */
    CHECK(json && strstr(json, "\"kind\":\"conflict\"") != NULL && strstr(json, "\"httpStatus\":409") != NULL);
    const char *id_at = json ? strstr(json, "\"id\":") : NULL;
    long long refused_id = id_at ? atoll(id_at + strlen("\"id\":")) : 0;
    ood_string_free(json);
    long requeued = -1;
    CHECK(ood_error_archive_requeue(store, refused_id, "{\"nosuch\":1}", &requeued) == OOD_SEMANTIC && requeued == 0);
    CHECK(ood_error_archive_requeue(store, refused_id + 1000, NULL, &requeued) == OOD_NOTFOUND);
    CHECK(ood_error_archive_requeue(store, refused_id, "{\"agencynum\":\"99000080\",\"name\":\"Fixed\",\"country\":\"US\"}",
                                    &requeued) == OOD_OK && requeued == 1);
    CHECK(ood_request_queue(store, &queue) == OOD_OK && queue != NULL);
    CHECK(queue && strstr(queue, "99000080") != NULL && strstr(queue, "\"state\":\"pending\"") != NULL);
    ood_string_free(queue);
    CHECK(ood_upload(store, NULL, NULL, &sent, &archived) == OOD_OK && sent == 1 && archived == 0);
    CHECK(ood_request(store, "GET", "TravelagencyCollection('99000080')", NULL, &result) == OOD_OK);
    CHECK(strstr(ood_result_body(result, NULL), "Fixed") != NULL);
    ood_result_free(result);
    CHECK(ood_request(store, "POST", "TravelagencyCollection", clash, &result) == OOD_OK);
    ood_result_free(result);
    CHECK(ood_upload(store, NULL, NULL, &sent, &archived) == OOD_OK && sent == 0 && archived == 1);
    long deleted = -1;
    CHECK(ood_error_archive_delete(store, -1, &deleted) == OOD_OK && deleted == 1);
    CHECK(ood_request(store, "GET", "TravelagencyCollection?$filter=country eq 'US' and name eq 'Clash'", NULL, &result) == OOD_OK);
    CHECK(strstr(ood_result_body(result, NULL), "Clash") == NULL);
    ood_result_free(result);
    CHECK(ood_error_archive_delete(store, refused_id, &deleted) == OOD_NOTFOUND && deleted == 0);
    ood_store_close(store);
}

static int pages = 0;
static int count_pages(long done, long total, void *payload) {
    (void)done;
    (void)total;
    (void)payload;
    pages++;
    return 0;
}

static int stop_at_once(long done, long total, void *payload) {
    (void)done;
    (void)total;
    (void)payload;
    return 1;
}

static void test_the_whole_loop(void) {
    ood_options *options = flight_options("loop.store", OOD_MODE_MIXED);
    ood_store *store = NULL;
    /* Open without waiting; a request issued at once completes with the downloaded data. */
    outcome opened, first;
    outcome_init(&opened, NULL);
    outcome_init(&first, NULL);
    CHECK(ood_store_open_async(options, record, &opened, &store) == OOD_OK && store != NULL);
    ood_options_free(options); /* copied by the open */
    event_log events;
    memset(&events, 0, sizeof events);
    pthread_mutex_init(&events.lock, NULL);
    pthread_cond_init(&events.changed, NULL);
    ood_subscription *subscription = NULL;
    CHECK(ood_subscribe(store, on_event, &events, &subscription) == OOD_OK && subscription != NULL);
    CHECK(ood_request_async(store, "GET", "TravelagencyCollection?$filter=country eq 'US'", NULL, record, &first) == OOD_OK);
    CHECK(wait_calls(&opened, 1) && opened.status == OOD_OK && opened.result == NULL);
    CHECK(wait_calls(&first, 1) && first.status == OOD_OK);
    CHECK(ood_result_status(first.result) == 200);
    CHECK(strstr(ood_result_body(first.result, NULL), "\"country\":\"US\"") != NULL);
    ood_result_free(first.result);

    /* Offline read, route, function import online. */
    ood_result *result = NULL;
    CHECK(ood_request(store, "GET", "TravelagencyCollection?$filter=city eq 'Beijing'", NULL, &result) == OOD_OK);
    CHECK(strstr(ood_result_body(result, NULL), "\"value\":[]") != NULL);
    ood_result_free(result);
    int online = -1;
    char *reason = NULL;
    CHECK(ood_route(store, "GET", "GetAgencyDetails(agencynum='00000001')", &online, &reason) == OOD_OK);
    CHECK(online == 1 && reason != NULL && strstr(reason, "function import") != NULL);
    ood_string_free(reason);
    CHECK(ood_route(store, "GET", "TravelagencyCollection", &online, NULL) == OOD_OK && online == 0);
    CHECK(ood_request(store, "GET", "GetAgencyDetails(agencynum='00000001')", NULL, &result) == OOD_OK);
    CHECK(ood_result_status(result) == 200 && strstr(ood_result_body(result, NULL), "00000001") != NULL);
    ood_result_free(result);

    /* A syntax error gives its offset. */
    CHECK(ood_request(store, "GET", "TravelagencyCollection?$filter=city eq", NULL, &result) == OOD_SYNTAX);
    CHECK(result == NULL && ood_error_offset() >= 0);

    /* An offline create, its completion calling back into the store. */
    outcome created;
    outcome_init(&created, store);
    CHECK(ood_request_async(store, "POST", "TravelagencyCollection",
                            "{\"agencynum\":\"99000042\",\"name\":\"C Travel\",\"city\":\"Boston\",\"country\":\"US\"}",
                            reentrant, &created) == OOD_OK);
    CHECK(wait_calls(&created, 1) && created.status == OOD_OK);
    CHECK(created.nested_blocking == OOD_BUSY);
    CHECK(ood_result_status(created.result) == 201);
    ood_result_free(created.result);
    CHECK(wait_count(&created.lock, &created.changed, &created.nested_async_calls, 1, 6));
    CHECK(created.nested_async_calls == 1);
    CHECK(ood_request(store, "GET", "TravelagencyCollection('99000042')", NULL, &result) == OOD_OK);
    CHECK(strstr(ood_result_body(result, NULL), "C Travel") != NULL);
    ood_result_free(result);

    /* The queue holds the create, as JSON. */
    char *queue = NULL;
    CHECK(ood_request_queue(store, &queue) == OOD_OK);
    CHECK(queue != NULL && strstr(queue, "\"method\":\"POST\"") != NULL && strstr(queue, "99000042") != NULL);
    ood_string_free(queue);
    CHECK(ood_request_queue(store, NULL) == OOD_MISUSE);
    CHECK(ood_request_queue(NULL, &queue) == OOD_MISUSE && queue == NULL);

    /* Upload, then a download with progress; a progress callback can stop a download. */
    long sent = -1, archived = -1;
    CHECK(ood_upload(store, count_pages, NULL, &sent, &archived) == OOD_OK);
    CHECK(sent == 1 && archived == 0);
    pages = 0;
    CHECK(ood_download(store, count_pages, NULL) == OOD_OK);
    CHECK(pages >= 1);
    CHECK(ood_download(store, stop_at_once, NULL) == OOD_ABORTED);
    CHECK(ood_request(store, "GET", "TravelagencyCollection('99000042')", NULL, &result) == OOD_OK);
    ood_result_free(result);

    /* The route as JSON, like the other questions; a download of named defining requests, whole. */
    char *route_json = NULL;
    CHECK(ood_route_json(store, "GET", "TravelagencyCollection", &route_json) == OOD_OK);
    CHECK(route_json != NULL && strstr(route_json, "\"destination\":\"offline\"") != NULL);
    CHECK(route_json != NULL && strstr(route_json, "\"coveringRequests\":[\"Agencies\"]") != NULL);
    ood_string_free(route_json);
    CHECK(ood_route_json(store, "GET", "GetAgencyDetails(agencynum='00000001')", &route_json) == OOD_OK);
    CHECK(route_json != NULL && strstr(route_json, "\"destination\":\"online\"") != NULL
          && strstr(route_json, "function import") != NULL);
    ood_string_free(route_json);
    CHECK(ood_route_json(store, "HEAD", "TravelagencyCollection", &route_json) == OOD_MISUSE && route_json == NULL);
    const char *agencies[] = {"Agencies", NULL};
    pages = 0;
    CHECK(ood_download_with(store, agencies, 1, count_pages, NULL) == OOD_OK);
    CHECK(pages >= 1);
    const char *unknown_request[] = {"NoSuchRequest", NULL};
    CHECK(ood_download_with(store, unknown_request, 0, NULL, NULL) == OOD_MISUSE);
    CHECK(strstr(ood_error_message(), "NoSuchRequest") != NULL);
    CHECK(ood_download_with(store, NULL, 0, stop_at_once, NULL) == OOD_ABORTED);
    CHECK(ood_request(store, "GET", "TravelagencyCollection('99000042')", NULL, &result) == OOD_OK);
    ood_result_free(result);

    /* The service has the agency now: ask it through an online store. */
    ood_options *online_options = NULL;
    CHECK(ood_options_new(&online_options) == OOD_OK);
    CHECK(ood_options_set_service_root(online_options, service_root) == OOD_OK);
    CHECK(ood_options_set_mode(online_options, OOD_MODE_ONLINE) == OOD_OK);
    ood_store *online_store = NULL;
    CHECK(ood_store_open_with(online_options, &online_store) == OOD_OK);
    ood_options_free(online_options);
    CHECK(ood_request(online_store, "GET", "TravelagencyCollection('99000042')", NULL, &result) == OOD_OK);
    CHECK(strstr(ood_result_body(result, NULL), "C Travel") != NULL);
    ood_result_free(result);
    CHECK(ood_request(online_store, "GET", "TravelagencyCollection('nope')", NULL, &result) == OOD_NOTFOUND);
    int version = 0;
    CHECK(ood_store_format_version(online_store, &version) == OOD_MISUSE);
    ood_store_close(online_store);

    /* Events: the first download, states, changes (coalesced), progress. */
    (void)wait_count(&events.lock, &events.changed, &events.counts[OOD_EVENT_UPLOAD_FINISHED], 1, 3);
    CHECK(event_count(&events, OOD_EVENT_FIRST_DOWNLOAD_COMPLETE) == 1);
    CHECK(event_count(&events, OOD_EVENT_STATE_CHANGED) >= 3);
    CHECK(event_count(&events, OOD_EVENT_DOWNLOAD_PROGRESS) >= 1);
    CHECK(event_count(&events, OOD_EVENT_UPLOAD_PROGRESS) == 1);
    CHECK(event_count(&events, OOD_EVENT_ENTITY_SETS_CHANGED) >= 1);
    pthread_mutex_lock(&events.lock);
    CHECK(strstr(events.last_changed, "TravelagencyCollection") != NULL);
    pthread_mutex_unlock(&events.lock);
    ood_subscription_free(subscription);
    ood_subscription_free(NULL);
    CHECK(ood_subscribe(store, NULL, NULL, &subscription) == OOD_MISUSE && subscription == NULL);

    /* Questions, as JSON. */
    char *json = NULL;
    CHECK(ood_explain(store, "TravelagencyCollection?$filter=country eq 'US' and city eq 'Boston'", &json) == OOD_OK);
    CHECK(json != NULL && strstr(json, "\"insideScope\":true") != NULL && strstr(json, "Agencies") != NULL);
    ood_string_free(json);
    CHECK(ood_explain(store, "TravelagencyCollection?$filter=nosuch eq 1", &json) == OOD_SEMANTIC && json == NULL);
    CHECK(ood_explain(store, NULL, &json) == OOD_MISUSE);
    CHECK(ood_store_status(store, &json) == OOD_OK);
    CHECK(json != NULL && strstr(json, "\"state\":\"open\"") != NULL && strstr(json, "\"queuedRequests\":0") != NULL);
    /* What the store recorded of its syncs: the last download (stopped by its progress callback)
       and the upload of the create. */
    CHECK(json != NULL && strstr(json, "\"sync\":{\"downloads\":[{\"definingRequest\":\"Agencies\"") != NULL);
    CHECK(json != NULL && strstr(json, "\"outcome\":\"stopped\"") != NULL);
    CHECK(json != NULL && strstr(json, "\"lastUpload\":{\"sent\":1,\"archived\":0") != NULL);
    ood_string_free(json);
    /* The sync log, newest first: the stopped download last, the upload before it. */
    CHECK(ood_store_sync_log(store, -1, &json) == OOD_OK);
    CHECK(json != NULL && strstr(json, "\"kind\":\"upload\",\"definingRequest\":null,\"requestID\":null,\"entities\":1") != NULL);
    CHECK(json != NULL && strstr(json, "\"kind\":\"download\",\"definingRequest\":\"Agencies\"") != NULL);
    ood_string_free(json);
    CHECK(ood_store_sync_log(store, 1, &json) == OOD_OK);
    CHECK(json != NULL && strstr(json, "\"outcome\":\"stopped\"") != NULL && strstr(json, "},{") == NULL);
    ood_string_free(json);
    CHECK(ood_store_sync_log(store, 0, &json) == OOD_OK && json != NULL && strcmp(json, "[]") == 0);
    ood_string_free(json);
    CHECK(ood_store_sync_log(NULL, -1, &json) == OOD_MISUSE && json == NULL);
    CHECK(ood_error_archive(store, &json) == OOD_OK && json != NULL && strcmp(json, "[]") == 0);
    ood_string_free(json);
    long deleted = -1;
    CHECK(ood_error_archive_delete(store, -1, &deleted) == OOD_OK && deleted == 0);
    CHECK(ood_error_archive_delete(NULL, -1, &deleted) == OOD_MISUSE);
    CHECK(ood_store_status(NULL, &json) == OOD_MISUSE && json == NULL);

    char *path = NULL;
    CHECK(ood_store_path(store, &path) == OOD_OK && strstr(path, "loop.store") != NULL);
    ood_string_free(path);
    CHECK(ood_store_format_version(store, &version) == OOD_OK && version >= 2);
    ood_store_close(store);
}

/* A declared index is made when the store opens (its first download from the V4 service
 * included), listed by ood_store_status and used by the plan ood_explain shows; a property the
 * model lacks fails the open. */
static void test_declared_indexes(void) {
    ood_options *options = flight_options("indexed.store", OOD_MODE_MIXED);
    CHECK(ood_options_add_index(options, "TravelagencyCollection", "city,name") == OOD_OK);
    CHECK(ood_options_add_index(NULL, "TravelagencyCollection", "city") == OOD_MISUSE);
    CHECK(ood_options_add_index(options, NULL, "city") == OOD_MISUSE);
    CHECK(ood_options_add_index(options, "TravelagencyCollection", NULL) == OOD_MISUSE);
    CHECK(ood_options_add_index(options, "", "city") == OOD_MISUSE);
    CHECK(ood_options_add_index(options, "TravelagencyCollection", "city,,name") == OOD_MISUSE);
    CHECK(strstr(ood_error_message(), "empty property name") != NULL);
    ood_store *store = NULL;
    CHECK(ood_store_open_with(options, &store) == OOD_OK);
    char *json = NULL;
    CHECK(ood_store_status(store, &json) == OOD_OK);
    CHECK(json != NULL && strstr(json, "\"indexes\":[{\"entitySet\":\"TravelagencyCollection\",\"properties\":[\"city\",\"name\"]") != NULL);
    CHECK(strstr(json, "\"origin\":\"declared\"") != NULL);
    ood_string_free(json);
    CHECK(ood_explain(store, "TravelagencyCollection?$filter=city eq 'Boston' and name eq 'x'", &json) == OOD_OK);
    CHECK(json != NULL && strstr(json, "USING INDEX es/TravelagencyCollection/index/city,name") != NULL);
    ood_string_free(json);
    ood_result *read = NULL;
    CHECK(ood_request(store, "GET", "TravelagencyCollection?$filter=city eq 'Boston'&$top=2", NULL, &read) == OOD_OK);
    CHECK(ood_result_status(read) == 200);
    ood_result_free(read);
    ood_store_close(store);
    ood_options_free(options);

    options = flight_options("badly-indexed.store", OOD_MODE_MIXED);
    CHECK(ood_options_add_index(options, "TravelagencyCollection", "mayor") == OOD_OK);
    store = NULL;
    CHECK(ood_store_open_with(options, &store) == OOD_MISUSE && store == NULL);
    CHECK(strstr(ood_error_message(), "no stored property 'mayor'") != NULL);
    ood_options_free(options);
}

static void test_a_failed_open_fails_every_request(void) {
    ood_options *options = NULL;
    CHECK(ood_options_new(&options) == OOD_OK);
    char path[512];
    snprintf(path, sizeof path, "%s/unreachable.store", folder);
    CHECK(ood_options_set_path(options, path) == OOD_OK);
    CHECK(ood_options_set_service_root(options, "http://127.0.0.1:1/") == OOD_OK);
    ood_store *store = NULL;
    CHECK(ood_store_open_with(options, &store) == OOD_NETWORK && store == NULL);
    outcome opened, held;
    outcome_init(&opened, NULL);
    outcome_init(&held, NULL);
    CHECK(ood_store_open_async(options, record, &opened, &store) == OOD_OK);
    CHECK(ood_request_async(store, "GET", "TravelagencyCollection", NULL, record, &held) == OOD_OK);
    CHECK(wait_calls(&opened, 1) && opened.status == OOD_NETWORK);
    CHECK(wait_calls(&held, 1) && held.status == OOD_NETWORK && held.result == NULL);
    /* The witness that no second completion is still to come: ood_store_close returns once the
     * store's threads (the lane that ran the opening, the other lanes, the event thread) ended. */
    ood_store_close(store);
    CHECK(held.calls == 1 && opened.calls == 1);
    ood_options_free(options);
}

/* Issue 22: one kind of handle. A store made and downloaded with options, closed, and reopened with
 * ood_store_open(path) alone answers as the file describes it: an offline read of the download, a
 * local write, its status, and an upload to the service root the file keeps. */
static void test_a_store_reopened_from_its_file_alone(void) {
    ood_options *options = flight_options("from-file.store", OOD_MODE_MIXED);
    ood_store *store = NULL;
    CHECK(ood_store_open_with(options, &store) == OOD_OK);
    ood_options_free(options);
    ood_store_close(store);

    char path[512];
    snprintf(path, sizeof path, "%s/from-file.store", folder);
    store = NULL;
    CHECK(ood_store_open(path, &store) == OOD_OK && store != NULL);
    ood_result *result = NULL;
    CHECK(ood_request(store, "GET", "TravelagencyCollection?$filter=country eq 'US'", NULL, &result) == OOD_OK);
    CHECK(ood_result_status(result) == 200 && strstr(ood_result_body(result, NULL), "\"country\":\"US\"") != NULL);
    ood_result_free(result);
    int online = -1;
    CHECK(ood_route(store, "GET", "TravelagencyCollection", &online, NULL) == OOD_OK && online == 0);
    CHECK(ood_request(store, "POST", "TravelagencyCollection",
                      "{\"agencynum\":\"99000091\",\"name\":\"From File\",\"city\":\"Boston\",\"country\":\"US\"}",
                      &result) == OOD_OK);
    CHECK(ood_result_status(result) == 201);
    ood_result_free(result);
    char *json = NULL;
    CHECK(ood_store_status(store, &json) == OOD_OK && json != NULL);
    CHECK(strstr(json, "\"queuedRequests\":1") != NULL && strstr(json, "\"serviceRoot\":\"http") != NULL);
    CHECK(strstr(json, "\"Agencies\"") != NULL);
    ood_string_free(json);
    long sent = -1, archived = -1;
    CHECK(ood_upload(store, NULL, NULL, &sent, &archived) == OOD_OK && sent == 1 && archived == 0);
    CHECK(ood_store_close(store) == OOD_OK);
}

/* Makes the store `name` in the test folder from the sample $metadata alone (no service root),
 * its one defining request the agencies; `path` receives its path. NULL if it could not be made. */
static ood_store *open_from_sample_metadata(char *path, size_t size, const char *name) {
    snprintf(path, size, "%s/%s", folder, name);
    ood_options *options = NULL;
    CHECK(ood_options_new(&options) == OOD_OK);
    CHECK(ood_options_set_path(options, path) == OOD_OK);
    CHECK(ood_options_set_metadata(options, sample_metadata) == OOD_OK);
    CHECK(ood_options_add_defining_request(options, "Agencies", "TravelagencyCollection") == OOD_OK);
    ood_store *store = NULL;
    CHECK(ood_store_open_with(options, &store) == OOD_OK);
    ood_options_free(options);
    return store;
}

/* A store made from $metadata alone keeps no service root: reopened with ood_store_open(path), it
 * reads, writes and tells its status, and its upload and download fail saying what is missing. */
static void test_a_store_file_without_a_service_root(void) {
    CHECK(sample_metadata != NULL);
    if (!sample_metadata) return;
    char path[512];
    ood_store *store = open_from_sample_metadata(path, sizeof path, "no-root.store");
    ood_store_close(store);

    store = NULL;
    CHECK(ood_store_open(path, &store) == OOD_OK && store != NULL);
    ood_result *result = NULL;
    CHECK(ood_request(store, "POST", "TravelagencyCollection",
                      "{\"agencynum\":\"99000078\",\"name\":\"No Root\",\"city\":\"Boston\",\"country\":\"US\"}",
                      &result) == OOD_OK);
    ood_result_free(result);
    result = NULL;
    CHECK(ood_request(store, "GET", "TravelagencyCollection('99000078')", NULL, &result) == OOD_OK);
    CHECK(ood_result_status(result) == 200 && strstr(ood_result_body(result, NULL), "No Root") != NULL);
    ood_result_free(result);
    char *json = NULL;
    CHECK(ood_store_status(store, &json) == OOD_OK && json != NULL);
    CHECK(strstr(json, "\"queuedRequests\":1") != NULL && strstr(json, "\"serviceRoot\":null") != NULL);
    ood_string_free(json);
    long sent = -1;
    CHECK(ood_upload(store, NULL, NULL, &sent, NULL) == OOD_MISUSE && sent == 0);
    CHECK(strstr(ood_error_message(), "ood_upload") != NULL && strstr(ood_error_message(), "no service root") != NULL);
    CHECK(strstr(ood_error_message(), "ood_options_set_service_root") != NULL);
    CHECK(ood_download(store, NULL, NULL) == OOD_MISUSE);
    CHECK(strstr(ood_error_message(), "ood_store_open_with") != NULL);
    CHECK(ood_store_close(store) == OOD_OK);
}

/* Checks one answer's kind, entity set and (for a property) its path and EDM type, then frees it. */
/* NULL and equal, or both set and equal as strings. */
static int same_text(const char *a, const char *b) {
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* ood_get_into gives the answer `expected` holds: copied into a buffer large enough (no result to
 * free), and as a result to free (a spill) when the buffer is too small or absent. */
static void expect_same_answer_copied(ood_store *store, const char *url, const ood_answer_view *expected) {
    char buffer[8192];
    size_t capacities[] = {sizeof buffer, expected->length, 0};
    for (size_t i = 0; i < sizeof capacities / sizeof capacities[0]; i++) {
        ood_answer_view view;
        ood_result *spill = (ood_result *)&view; /* cleared by the call */
        CHECK(ood_get_into(store, url, capacities[i] ? buffer : NULL, capacities[i], &view, &spill) == OOD_OK);
        CHECK((spill == NULL) == (i == 0));
        if (spill == NULL) {
            CHECK(view.body == buffer && view.body[view.length] == '\0');
        }
        CHECK(view.length == expected->length && memcmp(view.body, expected->body, view.length) == 0);
        CHECK(view.kind == expected->kind && strcmp(view.content_type, expected->content_type) == 0);
        CHECK(same_text(view.entity_set, expected->entity_set) && same_text(view.entity_type, expected->entity_type));
        CHECK(same_text(view.property, expected->property) && same_text(view.property_type, expected->property_type));
        ood_result_free(spill);
    }
    /* Misuse: the documented status, the view cleared, no result. */
    ood_answer_view view;
    ood_result *spill = NULL;
    CHECK(ood_get_into(store, url, NULL, 16, &view, &spill) == OOD_MISUSE && spill == NULL && view.length == 0);
    CHECK(ood_get_into(store, url, buffer, sizeof buffer, NULL, &spill) == OOD_MISUSE && spill == NULL);
    CHECK(ood_get_into(store, url, buffer, sizeof buffer, &view, NULL) == OOD_MISUSE && view.body != NULL);
    CHECK(ood_get_into(NULL, url, buffer, sizeof buffer, &view, &spill) == OOD_MISUSE && spill == NULL);
    CHECK(ood_get_into(store, NULL, buffer, sizeof buffer, &view, &spill) == OOD_MISUSE && spill == NULL);
    /* A read that fails: its status, nothing copied nor kept. */
    CHECK(ood_get_into(store, "NoSuchCollection", buffer, sizeof buffer, &view, &spill) != OOD_OK);
    CHECK(spill == NULL && view.length == 0 && view.kind == OOD_ANSWER_OTHER);
}

static void expect_answer(ood_store *store, const char *url, ood_answer_kind kind, const char *property,
                          const char *property_type) {
    ood_result *result = NULL;
    CHECK(ood_request(store, "GET", url, NULL, &result) == OOD_OK);
    CHECK(ood_result_kind(result) == kind);
    CHECK(ood_result_entity_set(result) != NULL && strcmp(ood_result_entity_set(result), "TravelagencyCollection") == 0);
    CHECK(ood_result_entity_type(result) != NULL
          && strcmp(ood_result_entity_type(result), "RMTSAMPLEFLIGHT.Travelagency") == 0);
    const char *type = "unset";
    const char *path = ood_result_property(result, &type);
    if (property == NULL) {
        CHECK(path == NULL && type == NULL);
    } else {
        CHECK(path != NULL && strcmp(path, property) == 0);
        CHECK(type != NULL && strcmp(type, property_type) == 0);
    }
    /* The same in one call, pointer for pointer. */
    ood_answer_view view;
    size_t length = 0;
    const char *body = ood_result_body(result, &length);
    CHECK(ood_result_view(result, &view) == OOD_OK);
    CHECK(view.body == body && view.length == length && length > 0);
    CHECK(view.content_type == ood_result_content_type(result) && view.kind == kind);
    CHECK(view.entity_set == ood_result_entity_set(result) && view.entity_type == ood_result_entity_type(result));
    CHECK(view.property == path && view.property_type == type);
    CHECK(ood_result_view(result, NULL) == OOD_MISUSE);
    expect_same_answer_copied(store, url, &view);
    ood_result_free(result);
}

/* Each answer says what it holds (ood_result_kind and the names beside it), so a caller types it
 * without parsing its URL: a collection, an entity, a property, a count, a raw value, a create. */
static void test_answers_say_what_they_hold(void) {
    CHECK(sample_metadata != NULL);
    if (!sample_metadata) return;
    char path[512];
    ood_store *store = open_from_sample_metadata(path, sizeof path, "kinds.store");
    if (store == NULL) return;
    ood_result *created = NULL;
    CHECK(ood_request(store, "POST", "TravelagencyCollection",
                      "{\"agencynum\":\"99000079\",\"name\":\"Kinds\",\"city\":\"Boston\",\"country\":\"US\"}",
                      &created) == OOD_OK);
    CHECK(ood_result_kind(created) == OOD_ANSWER_ENTITY);
    ood_result_free(created);
    expect_answer(store, "TravelagencyCollection?$filter=city eq 'Boston'", OOD_ANSWER_COLLECTION, NULL, NULL);
    expect_answer(store, "TravelagencyCollection('99000079')", OOD_ANSWER_ENTITY, NULL, NULL);
    expect_answer(store, "TravelagencyCollection('99000079')/name", OOD_ANSWER_PROPERTY, "name", "Edm.String");
    expect_answer(store, "TravelagencyCollection/$count", OOD_ANSWER_COUNT, NULL, NULL);
    expect_answer(store, "TravelagencyCollection('99000079')/name/$value", OOD_ANSWER_VALUE, "name", "Edm.String");
    /* NULL: the documented answers, and the out-parameter cleared. */
    const char *type = "unset";
    CHECK(ood_result_kind(NULL) == OOD_ANSWER_OTHER && ood_result_entity_set(NULL) == NULL);
    CHECK(ood_result_entity_type(NULL) == NULL && ood_result_property(NULL, &type) == NULL && type == NULL);
    ood_answer_view view;
    view.kind = OOD_ANSWER_ENTITY;
    view.entity_set = "unset";
    CHECK(ood_result_view(NULL, &view) == OOD_MISUSE);
    CHECK(view.kind == OOD_ANSWER_OTHER && view.entity_set == NULL && view.length == 0 && strcmp(view.body, "") == 0);
    CHECK(ood_store_close(store) == OOD_OK);
}

/* How many entities of the agency sample a collection answer holds (each has one "agencynum"). */
static int agencies_in(const ood_result *result) {
    int count = 0;
    for (const char *at = ood_result_body(result, NULL); (at = strstr(at, "\"agencynum\"")) != NULL; at++) count++;
    return count;
}

/* Issue 21: a read the service answers comes whole (its next links followed), or one page at a time
 * with ood_request_page() and ood_result_next_link(); a link off the service's origin is refused. */
static void test_pages_of_online_reads(void) {
    ood_options *options = flight_options("online-pages.store", OOD_MODE_ONLINE);
    ood_store *store = NULL;
    CHECK(ood_store_open_with(options, &store) == OOD_OK);
    ood_options_free(options);
    if (store == NULL) return;
    const char *small_pages[] = {"Prefer: odata.maxpagesize=10", NULL};
    const char *url = "TravelagencyCollection?$orderby=agencynum";

    ood_result *count = NULL, *whole = NULL;
    CHECK(ood_request(store, "GET", "TravelagencyCollection/$count", NULL, &count) == OOD_OK);
    int expected = count ? atoi(ood_result_body(count, NULL)) : -1;
    ood_result_free(count);
    CHECK(expected > 20);
    CHECK(ood_request_with_headers(store, "GET", url, NULL, small_pages, &whole) == OOD_OK);
    CHECK(agencies_in(whole) == expected && ood_result_next_link(whole) == NULL);
    CHECK(strstr(ood_result_body(whole, NULL), "nextLink") == NULL);
    ood_result_free(whole);

    int pages = 0, gathered = 0;
    ood_result *page = NULL;
    CHECK(ood_request_page(store, url, small_pages, &page) == OOD_OK);
    while (page != NULL && pages < 100) {
        pages++;
        CHECK(agencies_in(page) <= 10);
        /* The first page says what the collection is; a next link's page is the service's URL, not parsed. */
        CHECK(ood_result_kind(page) == (pages == 1 ? OOD_ANSWER_COLLECTION : OOD_ANSWER_OTHER));
        gathered += agencies_in(page);
        const char *next = ood_result_next_link(page);
        ood_result *following = NULL;
        if (next != NULL) {
            CHECK(strncmp(next, service_root, strlen(service_root)) == 0);
            CHECK(ood_request_page(store, next, small_pages, &following) == OOD_OK);
        }
        ood_result_free(page);
        page = following;
    }
    CHECK(gathered == expected && pages == (expected + 9) / 10);

    ood_result *refused = (ood_result *)store;
    CHECK(ood_request_page(store, "http://127.0.0.1:9/TravelagencyCollection?$skiptoken=10", NULL, &refused) == OOD_NETWORK);
    CHECK(refused == NULL && strstr(ood_error_message(), "leaves the service's origin") != NULL);
    CHECK(ood_store_close(store) == OOD_OK);
}

/* Issue 20: an answer above the maximum response size fails the open, naming the limit. */
static void test_the_maximum_response_size(void) {
    ood_options *options = flight_options("limited.store", OOD_MODE_MIXED);
    CHECK(ood_options_set_limits(options, 100, 10) == OOD_OK);
    ood_store *store = NULL;
    CHECK(ood_store_open_with(options, &store) == OOD_NETWORK && store == NULL);
    CHECK(strstr(ood_error_message(), "larger than 100 bytes") != NULL);
    ood_options_free(options);
}

/* A store is made only where no file is: an empty file is refused, naming it, until accepted;
 * ood_store_check() finds a sound store sound. */
static void test_an_empty_file_and_the_store_check(void) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", folder, "empty.store");
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f) fclose(f);
    ood_options *options = flight_options("empty.store", OOD_MODE_MIXED);
    ood_store *store = (ood_store *)&store;
    CHECK(ood_store_open_with(options, &store) == OOD_NOTASTORE && store == NULL);
    CHECK(strstr(ood_error_message(), path) != NULL);
    CHECK(strstr(ood_error_message(), "empty file (0 bytes)") != NULL);
    CHECK(strstr(ood_error_message(), "ood_options_set_accept_empty_file") != NULL);
    CHECK(ood_options_set_accept_empty_file(NULL, 1) == OOD_MISUSE);
    CHECK(ood_options_set_accept_empty_file(options, 1) == OOD_OK);
    CHECK(ood_store_open_with(options, &store) == OOD_OK && store != NULL);
    ood_options_free(options);

    char *json = NULL;
    CHECK(ood_store_check(store, 0, &json) == OOD_OK && json != NULL && strcmp(json, "[]") == 0);
    ood_string_free(json);
    CHECK(ood_store_check(store, 1, &json) == OOD_OK && json != NULL && strcmp(json, "[]") == 0);
    ood_string_free(json);
    CHECK(ood_store_check(store, 0, NULL) == OOD_MISUSE);
    json = (char *)path;
    CHECK(ood_store_check(NULL, 0, &json) == OOD_MISUSE && json == NULL);
    CHECK(ood_store_close(store) == OOD_OK);
}

/* Issue 20: a $metadata document above the limit fails the open before it is read. */
static void test_the_maximum_metadata_size(void) {
    ood_options *options = flight_options("limited-metadata.store", OOD_MODE_MIXED);
    CHECK(ood_options_set_limit(options, OOD_LIMIT_METADATA_SIZE, 500) == OOD_OK);
    ood_store *store = NULL;
    CHECK(ood_store_open_with(options, &store) == OOD_METADATA && store == NULL);
    CHECK(strstr(ood_error_message(), "more than the limit of 500 bytes") != NULL);
    ood_options_free(options);
}

/* Conflict policies (issue 37): the resolver sees the three versions and answers a merged body. */
typedef struct resolver_log {
    int calls;
    char versions[4096];
} resolver_log;

static int merge_names(const char *versions_json, char *merged_body, size_t capacity, void *payload) {
    resolver_log *log = payload;
    log->calls += 1;
    snprintf(log->versions, sizeof log->versions, "%s", versions_json);
    snprintf(merged_body, capacity, "{\"name\":\"C Merged\"}");
    return OOD_CONFLICT_MERGED_BODY;
}

static void change_online(const char *url, const char *body) {
    ood_options *online_options = NULL;
    CHECK(ood_options_new(&online_options) == OOD_OK);
    CHECK(ood_options_set_service_root(online_options, service_root) == OOD_OK);
    CHECK(ood_options_set_mode(online_options, OOD_MODE_ONLINE) == OOD_OK);
    ood_store *online_store = NULL;
    CHECK(ood_store_open_with(online_options, &online_store) == OOD_OK);
    ood_options_free(online_options);
    const char *any_etag[] = {"If-Match: *", NULL};
    ood_result *result = NULL;
    CHECK(ood_request_with_headers(online_store, "PATCH", url, body, any_etag, &result) == OOD_OK);
    ood_result_free(result);
    ood_store_close(online_store);
}

static void test_conflict_policies_and_a_resolver(void) {
    ood_options *options = flight_options("conflicts.store", OOD_MODE_MIXED);
    ood_store *store = NULL;
    CHECK(ood_store_open_with(options, &store) == OOD_OK);
    ood_options_free(options);
    CHECK(ood_download(store, NULL, NULL) == OOD_OK);
    ood_result *result = NULL;
    CHECK(ood_request(store, "GET", "TravelagencyCollection?$orderby=agencynum desc&$top=1&$select=agencynum", NULL,
                      &result) == OOD_OK);
    char url[96] = "";
    const char *at = strstr(ood_result_body(result, NULL), "\"agencynum\":\"");
    CHECK(at != NULL);
    if (at) snprintf(url, sizeof url, "TravelagencyCollection('%.8s')", at + strlen("\"agencynum\":\""));
    ood_result_free(result);

    char *json = NULL;
    CHECK(ood_store_set_conflict_policy(store, NULL, "clientWins") == OOD_OK);
    CHECK(ood_store_set_conflict_policy(store, "TravelagencyCollection", "serverWins") == OOD_OK);
    CHECK(ood_store_set_conflict_policy(store, "NoSuchSet", "serverWins") == OOD_NOTFOUND);
    CHECK(ood_store_set_conflict_policy(store, NULL, "sometimes") == OOD_MISUSE);
    CHECK(ood_store_conflict_policies(store, &json) == OOD_OK && json != NULL);
    CHECK(json && strstr(json, "\"default\":\"clientWins\"") && strstr(json, "\"TravelagencyCollection\":\"serverWins\""));
    ood_string_free(json);

    /* Server wins (the set's policy): the change is dropped, recorded, and the store has the service's name. */
    CHECK(ood_request(store, "PATCH", url, "{\"name\":\"C Local\"}", &result) == OOD_OK);
    ood_result_free(result);
    change_online(url, "{\"name\":\"C Service\"}");
    CHECK(ood_upload_resolving(store, NULL, NULL, NULL, &json) == OOD_OK && json != NULL);
    CHECK(json && strstr(json, "\"discarded\":1") != NULL && strstr(json, "\"sent\":0") != NULL);
    ood_string_free(json);
    CHECK(ood_request(store, "GET", url, NULL, &result) == OOD_OK);
    CHECK(strstr(ood_result_body(result, NULL), "C Service") != NULL);
    ood_result_free(result);
    CHECK(ood_discarded_changes(store, &json) == OOD_OK && json != NULL);
    CHECK(json && strstr(json, "\"local\":{\"name\":\"C Local\"}") != NULL && strstr(json, "\"changedBy\":\"both\"") != NULL);
    ood_string_free(json);
    long cleared = -1;
    CHECK(ood_discarded_changes_clear(store, &cleared) == OOD_OK && cleared == 1);

    /* A resolver over the policy: it sees the three versions once and its merged body is sent. */
    CHECK(ood_request(store, "PATCH", url, "{\"name\":\"C Local 2\"}", &result) == OOD_OK);
    ood_result_free(result);
    change_online(url, "{\"name\":\"C Service 2\"}");
    resolver_log log;
    memset(&log, 0, sizeof log);
    CHECK(ood_upload_resolving(store, "archive", merge_names, &log, &json) == OOD_OK && json != NULL);
    CHECK(json && strstr(json, "\"sent\":1") != NULL);
    ood_string_free(json);
    CHECK(log.calls == 1);
    CHECK(strstr(log.versions, "\"original\":{") != NULL && strstr(log.versions, "\"name\":\"C Service\"") != NULL);
    CHECK(strstr(log.versions, "\"local\":{\"name\":\"C Local 2\"}") != NULL);
    CHECK(strstr(log.versions, "\"served\":{") != NULL && strstr(log.versions, "C Service 2") != NULL);
    CHECK(ood_request(store, "GET", url, NULL, &result) == OOD_OK);
    CHECK(strstr(ood_result_body(result, NULL), "C Merged") != NULL);
    ood_result_free(result);
    CHECK(ood_upload_resolving(NULL, NULL, NULL, NULL, &json) == OOD_MISUSE && json == NULL);
    CHECK(ood_upload_resolving(store, NULL, NULL, NULL, NULL) == OOD_MISUSE);
    ood_store_close(store);
}

/* Alternate keys (issue 37): declared, read back with the model's, checked, forgotten. */
static void test_alternate_keys(void) {
    ood_options *options = flight_options("alternate.store", OOD_MODE_MIXED);
    ood_store *store = NULL;
    CHECK(ood_store_open_with(options, &store) == OOD_OK);
    ood_options_free(options);
    char *json = NULL;
    CHECK(ood_store_alternate_keys(store, &json) == OOD_OK && json && strcmp(json, "{}") == 0);
    ood_string_free(json);
    CHECK(ood_store_set_alternate_key(store, "TravelagencyCollection", "name,country") == OOD_OK);
    CHECK(ood_store_alternate_keys(store, &json) == OOD_OK && json != NULL);
    CHECK(json && strcmp(json, "{\"TravelagencyCollection\":[[\"name\",\"country\"]]}") == 0);
    ood_string_free(json);
    CHECK(ood_store_set_alternate_key(store, "NoSuchSet", "name") == OOD_NOTFOUND);
    CHECK(ood_store_set_alternate_key(store, "TravelagencyCollection", "nosuch") == OOD_SEMANTIC);
    CHECK(ood_store_set_alternate_key(store, "TravelagencyCollection", "name,") == OOD_MISUSE);
    CHECK(ood_store_set_alternate_key(store, NULL, "name") == OOD_MISUSE);
    CHECK(ood_store_set_alternate_key(store, "TravelagencyCollection", "") == OOD_OK);
    CHECK(ood_store_alternate_keys(store, &json) == OOD_OK && json && strcmp(json, "{}") == 0);
    ood_string_free(json);
    CHECK(ood_store_alternate_keys(store, NULL) == OOD_MISUSE);
    ood_store_close(store);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s [METADATA_XML] SERVICE_ROOT (Tests/scripts/with_backend.sh starts the V4 service)\n", argv[0]);
        return 2;
    }
    service_root = argv[argc - 1];
    if (argc >= 3) sample_metadata = read_file(argv[1]);
    if (!mkdtemp(folder)) {
        perror("mkdtemp");
        return 2;
    }
    test_options_errors();
    test_null_and_wrong_handles();
    test_the_whole_loop();
    test_headers_cancel_metadata_undo_and_batch();
    test_declared_indexes();
    test_a_failed_open_fails_every_request();
    test_a_store_reopened_from_its_file_alone();
    test_a_store_file_without_a_service_root();
    test_answers_say_what_they_hold();
    test_the_maximum_response_size();
    test_the_maximum_metadata_size();
    test_pages_of_online_reads();
    test_an_empty_file_and_the_store_check();
    test_conflict_policies_and_a_resolver();
    test_alternate_keys();
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    if (system(command) != 0) fprintf(stderr, "could not remove %s\n", folder);
    free(sample_metadata);
    return check_summary("c_store_api");
}
