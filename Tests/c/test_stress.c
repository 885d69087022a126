/* The C stress test: 8 threads share one store through the C API, 10,000 operations each (reads,
 * creates, routes, status questions, and completions that call back into the store), then the
 * final state is checked: every create is in the store and in the request queue, nothing failed.
 *
 *   test_stress METADATA_FILE */
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

#define THREADS 8
/* Operations per thread: 10,000, or OOD_STRESS_OPERATIONS (a multiple of 10) for a bounded run
 * (make test-encrypted runs it shorter under a key; make ctest-encrypted-full in full). */
static int OPERATIONS = 10000;

static ood_store *store = NULL;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Broadcast at each count, for the wait at the end. */
static pthread_cond_t counted = PTHREAD_COND_INITIALIZER;
static long failures = 0, creates = 0, busy_answers = 0, nested_done = 0, async_done = 0, async_issued = 0;
static char first_failure[512] = "";

static void count(long *counter) {
    pthread_mutex_lock(&lock);
    (*counter)++;
    pthread_cond_broadcast(&counted);
    pthread_mutex_unlock(&lock);
}

static void failed(const char *what, ood_status status) {
    pthread_mutex_lock(&lock);
    if (failures++ == 0) snprintf(first_failure, sizeof first_failure, "%s: %s (%s)", what, ood_error_message(), ood_status_name(status));
    pthread_mutex_unlock(&lock);
}

static void nested(ood_status status, ood_result *result, void *payload) {
    (void)payload;
    if (status != OOD_OK) failed("nested read", status);
    ood_result_free(result);
    count(&nested_done);
}

/* A completion that calls back into its store: the blocking call must answer OOD_BUSY, the
 * asynchronous one must run. */
static void completed(ood_status status, ood_result *result, void *payload) {
    (void)payload;
    if (status != OOD_OK) failed("async read", status);
    ood_result_free(result);
    ood_result *inner = NULL;
    if (ood_request(store, "GET", "TravelagencyCollection/$count", NULL, &inner) == OOD_BUSY) count(&busy_answers);
    ood_result_free(inner);
    ood_status nested_status = ood_request_async(store, "GET", "TravelagencyCollection?$top=1", NULL, nested, NULL);
    if (nested_status != OOD_OK) failed("nested issue", nested_status);
    count(&async_done);
}

static void *worker(void *argument) {
    long thread = (long)argument;
    char body[256];
    for (int i = 0; i < OPERATIONS; i++) {
        ood_result *result = NULL;
        ood_status status = OOD_OK;
        switch (i % 10) {
        case 0: /* a create, 10% of the operations */
            snprintf(body, sizeof body,
                     "{\"agencynum\":\"S%ld%06d\",\"name\":\"Stress %ld\",\"city\":\"Stress\",\"country\":\"US\"}", thread, i, thread);
            status = ood_request(store, "POST", "TravelagencyCollection", body, &result);
            if (status == OOD_OK) count(&creates); else failed("create", status);
            break;
        case 1: {
            int online = -1;
            status = ood_route(store, "GET", "GetAgencyDetails(agencynum='00000001')", &online, NULL);
            if (status != OOD_OK || online != 0) failed("route", status); /* an offline-only store takes everything */
            break;
        }
        case 2: {
            char *json = NULL;
            status = ood_store_status(store, &json);
            if (status != OOD_OK || !strstr(json, "\"state\":\"open\"")) failed("status", status);
            ood_string_free(json);
            break;
        }
        case 3:
            count(&async_issued);
            status = ood_request_async(store, "GET", "TravelagencyCollection?$filter=city eq 'Stress'&$top=5", NULL, completed, NULL);
            if (status != OOD_OK) failed("async issue", status);
            break;
        case 4: case 5: case 6: /* the thread's own last create, by key */
            snprintf(body, sizeof body, "TravelagencyCollection('S%ld%06d')", thread, i - i % 10);
            status = ood_request(store, "GET", body, NULL, &result);
            if (status != OOD_OK || !strstr(ood_result_body(result, NULL), "Stress")) failed("key read", status);
            break;
        default:
            status = ood_request(store, "GET", "TravelagencyCollection?$filter=country eq 'US' and city eq 'Stress'&$top=20", NULL, &result);
            if (status != OOD_OK || ood_result_status(result) != 200) failed("read", status);
            break;
        }
        ood_result_free(result);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s METADATA_FILE\n", argv[0]);
        return 2;
    }
    const char *operations = getenv("OOD_STRESS_OPERATIONS");
    if (operations != NULL && atoi(operations) >= 10) OPERATIONS = atoi(operations) / 10 * 10;
    char folder[] = "/tmp/ood-c-stress-XXXXXX";
    if (!mkdtemp(folder)) return 2;
    char path[512];
    snprintf(path, sizeof path, "%s/stress.store", folder);
    char *metadata = read_file(argv[1]);
    CHECK(metadata != NULL);
    ood_options *options = NULL;
    CHECK(ood_options_new(&options) == OOD_OK);
    CHECK(ood_options_set_path(options, path) == OOD_OK);
    CHECK(ood_options_set_metadata(options, metadata ? metadata : "") == OOD_OK);
    CHECK(ood_options_add_defining_request(options, "Agencies", "TravelagencyCollection?$filter=country eq 'US'") == OOD_OK);
    free(metadata);
    CHECK(ood_store_open_with(options, &store) == OOD_OK);
    ood_options_free(options);
    if (!store) return check_summary("c_stress");

    pthread_t threads[THREADS];
    for (long t = 0; t < THREADS; t++) pthread_create(&threads[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
    /* Every asynchronous request and the one each of them issued from its completion end. */
    /* Woken by each completion, for at most 120 s. */
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 120;
    pthread_mutex_lock(&lock);
    while (async_done != async_issued || nested_done != async_issued) {
        if (pthread_cond_timedwait(&counted, &lock, &deadline) != 0) break;
    }
    pthread_mutex_unlock(&lock);
    if (failures) fprintf(stderr, "%ld failures, the first: %s\n", failures, first_failure);
    CHECK(failures == 0);
    CHECK(creates == THREADS * OPERATIONS / 10);
    CHECK(async_done == async_issued && nested_done == async_issued && async_issued == THREADS * OPERATIONS / 10);
    CHECK(busy_answers == async_issued);

    /* The final state: the store holds every create, and the queue has one POST for each. */
    ood_result *result = NULL;
    CHECK(ood_request(store, "GET", "TravelagencyCollection/$count?$filter=city eq 'Stress'", NULL, &result) == OOD_OK);
    char expected[32];
    snprintf(expected, sizeof expected, "%ld", creates);
    CHECK(strcmp(ood_result_body(result, NULL), expected) == 0);
    ood_result_free(result);
    char *json = NULL;
    CHECK(ood_store_status(store, &json) == OOD_OK);
    char queued[64];
    snprintf(queued, sizeof queued, "\"queuedRequests\":%ld", creates);
    CHECK(json != NULL && strstr(json, queued) != NULL);
    ood_string_free(json);
    ood_store_close(store);
    unsigned char key[32];
    printf("c_stress: %d threads x %d operations, %ld creates, %ld completions calling back (%ld busy answers)%s\n",
           THREADS, OPERATIONS, creates, async_done, busy_answers, under_key_bytes(key) ? ", under a key" : "");
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    if (system(command) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_summary("c_stress");
}
