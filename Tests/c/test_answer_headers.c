/* The HTTP status and headers of answers from C (ood_result_header) and of refusals
 * (ood_error_http_status, ood_error_header), against a real test service: odatapy (V4) or
 * mock-sap (V2, SAP Gateway, CSRF on), both serving the flight sample.
 *   test_answer_headers v4|v2 SERVICE_ROOT      (Tests/scripts/with_backend.sh starts the service) */
#define _DEFAULT_SOURCE /* mkdtemp, clock_gettime */
#include "offline_odata.h"
#include "check.h"
#include "under_key.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char folder[] = "/tmp/ood-c-headers-XXXXXX";
static const char *service_root = NULL;
static int is_v2 = 0;

static int ends_with(const char *text, const char *end) {
    size_t length = strlen(text), end_length = strlen(end);
    return length >= end_length && strcmp(text + length - end_length, end) == 0;
}

static int starts_with(const char *text, const char *start) { return strncmp(text, start, strlen(start)) == 0; }

/* A store in `mode`; with a file (and the defining request of the US agencies) unless `path_name` is NULL. */
static ood_store *open_store(const char *path_name, int mode) {
    ood_options *options = NULL;
    CHECK(ood_options_new(&options) == OOD_OK);
    if (path_name != NULL) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", folder, path_name);
        CHECK(ood_options_set_path(options, path) == OOD_OK);
        CHECK(ood_options_add_defining_request(options, "Agencies", "TravelagencyCollection?$filter=country eq 'US'")
              == OOD_OK);
    }
    CHECK(ood_options_set_service_root(options, service_root) == OOD_OK);
    CHECK(ood_options_set_mode(options, mode) == OOD_OK);
    CHECK(ood_options_set_timeouts(options, 10, 60) == OOD_OK);
    ood_store *store = NULL;
    ood_status opened = ood_store_open_with(options, &store);
    if (opened != OOD_OK) fprintf(stderr, "open: %s\n", ood_error_message());
    CHECK(opened == OOD_OK && store != NULL);
    ood_options_free(options);
    return store;
}

/* A create the service answers: 201 with the new entity's address in Location. */
static void test_an_online_create_has_201_and_location(ood_store *store) {
    ood_result *created = NULL;
    ood_status status = ood_request(store, "POST", "TravelagencyCollection",
                                    "{\"agencynum\":\"99000201\",\"name\":\"Headers Online\",\"country\":\"US\"}", &created);
    if (status != OOD_OK) fprintf(stderr, "create: %s\n", ood_error_message());
    CHECK(status == OOD_OK);
    CHECK(ood_result_status(created) == 201);
    const char *location = ood_result_header(created, "Location");
    CHECK(location != NULL && starts_with(location, "http://127.0.0.1:")
          && ends_with(location, "TravelagencyCollection('99000201')"));
    /* Names are compared without case, and one name gives the same borrowed string each time. */
    CHECK(ood_result_header(created, "LOCATION") == location);
    CHECK(ood_result_header(created, "X-No-Such-Header") == NULL);
    ood_result_free(created);
}

/* A read of one entity: the service's ETag. Returns a copy of it (NULL when missing). */
static char *test_an_online_read_has_its_etag(ood_store *store) {
    ood_result *read = NULL;
    CHECK(ood_request(store, "GET", "TravelagencyCollection('00000001')", NULL, &read) == OOD_OK);
    CHECK(ood_result_status(read) == 200);
    const char *etag = ood_result_header(read, "ETag");
    CHECK(etag != NULL && starts_with(etag, "W/\""));
    CHECK(ood_result_header(read, "Content-Type") != NULL
          && strstr(ood_result_header(read, "Content-Type"), "application/json") != NULL);
    char *copy = etag != NULL ? strdup(etag) : NULL;
    ood_result_free(read);
    return copy;
}

/* A read the service refuses with 404: OOD_NOTFOUND, the status and the answer's headers on the
 * thread; the next success clears them. */
static void test_a_refused_read_carries_404(ood_store *store) {
    ood_result *read = (ood_result *)store;
    CHECK(ood_request(store, "GET", "TravelagencyCollection('99999999')", NULL, &read) == OOD_NOTFOUND);
    CHECK(read == NULL);
    CHECK(ood_error_http_status() == 404);
    CHECK(strstr(ood_error_message(), "404") != NULL);
    const char *type = ood_error_header("content-type");
    CHECK(type != NULL && strstr(type, "json") != NULL);
    CHECK(ood_error_header("X-No-Such-Header") == NULL);

    CHECK(ood_request(store, "GET", "TravelagencyCollection('00000001')", NULL, &read) == OOD_OK);
    CHECK(ood_error_http_status() == 0 && ood_error_header("Content-Type") == NULL);
    ood_result_free(read);
}

/* An update whose If-Match is not the entity's ETag (V4): 412, and its status on the thread. */
static void test_a_stale_update_carries_412(ood_store *store, const char *etag) {
    const char *headers[] = {"If-Match: W/\"999\"", NULL};
    ood_result *updated = NULL;
    ood_status status = ood_request_with_headers(store, "PATCH", "TravelagencyCollection('00000001')",
                                                 "{\"name\":\"Stale\"}", headers, &updated);
    CHECK(status == OOD_HTTP && updated == NULL);
    CHECK(ood_error_http_status() == 412);
    CHECK(strstr(ood_error_message(), "412") != NULL);
    /* With the ETag just read, the same update goes through, and the answer has the new ETag. */
    char if_match[200];
    snprintf(if_match, sizeof if_match, "If-Match: %s", etag != NULL ? etag : "*");
    const char *fresh[] = {if_match, NULL};
    CHECK(ood_request_with_headers(store, "PATCH", "TravelagencyCollection('00000001')", "{\"name\":\"Fresh\"}", fresh,
                                   &updated) == OOD_OK);
    CHECK(ood_result_status(updated) == 200 || ood_result_status(updated) == 204);
    ood_result_free(updated);
    ood_result *read = NULL;
    CHECK(ood_request(store, "GET", "TravelagencyCollection('00000001')", NULL, &read) == OOD_OK);
    const char *after = ood_result_header(read, "ETag");
    CHECK(after != NULL && etag != NULL && strcmp(after, etag) != 0);
    ood_result_free(read);
}

/* A completion of a refused asynchronous request sees the status on its own thread. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t answered; /* broadcast by the completion */
    int calls;
    ood_status status;
    int http_status;
} async_outcome;

static void record_refusal(ood_status status, ood_result *result, void *payload) {
    async_outcome *o = payload;
    int http_status = ood_error_http_status();
    ood_result_free(result);
    pthread_mutex_lock(&o->lock);
    o->calls++;
    o->status = status;
    o->http_status = http_status;
    pthread_cond_broadcast(&o->answered);
    pthread_mutex_unlock(&o->lock);
}

static void test_an_async_refusal_carries_its_status(ood_store *store) {
    async_outcome o = {.calls = 0, .status = OOD_OK, .http_status = -1};
    pthread_mutex_init(&o.lock, NULL);
    pthread_cond_init(&o.answered, NULL);
    CHECK(ood_request_async(store, "GET", "TravelagencyCollection('99999998')", NULL, record_refusal, &o) == OOD_OK);
    /* Woken by the completion, for at most 60 s. */
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 60;
    pthread_mutex_lock(&o.lock);
    while (o.calls == 0) {
        if (pthread_cond_timedwait(&o.answered, &o.lock, &deadline) != 0) break;
    }
    int calls = o.calls;
    pthread_mutex_unlock(&o.lock);
    CHECK(calls == 1 && o.status == OOD_NOTFOUND && o.http_status == 404);
    pthread_cond_destroy(&o.answered);
    pthread_mutex_destroy(&o.lock);
}

/* Offline answers have what a service would send: the ETag the download brought for a read by
 * key, a create's Location under the service root, with the key as stored. */
static void test_offline_answers_have_etag_and_location(const char *online_etag) {
    ood_store *store = open_store("offline.store", OOD_MODE_OFFLINE);
    ood_result *read = NULL;
    CHECK(ood_request(store, "GET", "TravelagencyCollection('00000001')", NULL, &read) == OOD_OK);
    const char *etag = ood_result_header(read, "ETag");
    CHECK(etag != NULL && online_etag != NULL && strcmp(etag, online_etag) == 0);
    ood_result_free(read);
    /* A collection's answer has no one ETag. */
    CHECK(ood_request(store, "GET", "TravelagencyCollection?$top=2", NULL, &read) == OOD_OK);
    CHECK(ood_result_header(read, "ETag") == NULL && ood_result_header(read, "Content-Type") != NULL);
    ood_result_free(read);

    ood_result *created = NULL;
    CHECK(ood_request(store, "POST", "TravelagencyCollection",
                      "{\"agencynum\":\"99000202\",\"name\":\"Headers Offline\",\"country\":\"US\"}", &created) == OOD_OK);
    CHECK(ood_result_status(created) == 201);
    const char *location = ood_result_header(created, "Location");
    char expected[600];
    snprintf(expected, sizeof expected, "%sTravelagencyCollection('99000202')", service_root);
    CHECK(location != NULL && strcmp(location, expected) == 0);
    ood_result_free(created);
    CHECK(ood_store_close(store) == OOD_OK);
}

int main(int argc, char **argv) {
    if (argc < 3 || (strcmp(argv[1], "v4") != 0 && strcmp(argv[1], "v2") != 0)) {
        fprintf(stderr, "usage: %s v4|v2 SERVICE_ROOT (Tests/scripts/with_backend.sh starts the service)\n", argv[0]);
        return 2;
    }
    is_v2 = strcmp(argv[1], "v2") == 0;
    service_root = argv[argc - 1];
    if (!mkdtemp(folder)) {
        perror("mkdtemp");
        return 2;
    }
    ood_store *online = open_store(NULL, OOD_MODE_ONLINE);
    test_an_online_create_has_201_and_location(online);
    char *etag = test_an_online_read_has_its_etag(online);
    test_a_refused_read_carries_404(online);
    test_an_async_refusal_carries_its_status(online);
    /* odatapy keeps ETags as version counters and checks If-Match; mock-sap does not check it. */
    if (!is_v2) test_a_stale_update_carries_412(online, etag);
    free(etag);
    etag = test_an_online_read_has_its_etag(online);
    CHECK(ood_store_close(online) == OOD_OK);
    test_offline_answers_have_etag_and_location(etag);
    free(etag);

    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    if (system(command) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_summary(is_v2 ? "c_answer_headers_v2" : "c_answer_headers_v4");
}
