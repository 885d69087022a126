/* Live queries through the C API (issue 36): ood_watch delivers the current answer at once, then
 * each changed one; a write to another set runs nothing; ood_watch_stop ends the callbacks, also
 * from inside one; ood_store_close stops every watch. An offline store: no service needed.
 *
 *   test_watch METADATA_FILE */
#define _DEFAULT_SOURCE /* mkdtemp, clock_gettime */
#include "offline_odata.h"
#include "check.h"
#include "read_file.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The answers of one watch, as the callback saw them. */
typedef struct answers {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int count;
    ood_status last_status;
    char last[4096];
    ood_watcher *self; /* set for the watch that stops itself from its callback */
    int stop_after;
} answers;

static void on_answer(ood_status status, const char *body, size_t length, void *payload) {
    answers *log = payload;
    pthread_mutex_lock(&log->lock);
    log->count++;
    log->last_status = status;
    size_t kept = length < sizeof log->last - 1 ? length : sizeof log->last - 1;
    memcpy(log->last, body, kept);
    log->last[kept] = '\0';
    int stop = log->self != NULL && log->count == log->stop_after;
    ood_watcher *self = log->self;
    if (stop) log->self = NULL;
    pthread_cond_broadcast(&log->changed);
    pthread_mutex_unlock(&log->lock);
    if (stop) ood_watch_stop(self); /* from its own callback: returns at once, this call is the last */
}

static void answers_init(answers *log) {
    memset(log, 0, sizeof *log);
    pthread_mutex_init(&log->lock, NULL);
    pthread_cond_init(&log->changed, NULL);
}

/* Waits (up to 30 s, woken by each answer) until the last answer contains `text`. */
static int wait_for(answers *log, const char *text) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    pthread_mutex_lock(&log->lock);
    while (strstr(log->last, text) == NULL) {
        if (pthread_cond_timedwait(&log->changed, &log->lock, &deadline) != 0) break;
    }
    int found = strstr(log->last, text) != NULL;
    pthread_mutex_unlock(&log->lock);
    return found;
}

/* Waits (up to 30 s, woken by each answer) until `count` answers came. */
static int wait_count(answers *log, int count) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 30;
    pthread_mutex_lock(&log->lock);
    while (log->count < count) {
        if (pthread_cond_timedwait(&log->changed, &log->lock, &deadline) != 0) break;
    }
    int reached = log->count >= count;
    pthread_mutex_unlock(&log->lock);
    return reached;
}

static int count_of(answers *log) {
    pthread_mutex_lock(&log->lock);
    int count = log->count;
    pthread_mutex_unlock(&log->lock);
    return count;
}

static void post(ood_store *store, const char *url, const char *body) {
    ood_result *result = NULL;
    CHECK(ood_request(store, "POST", url, body, &result) == OOD_OK);
    ood_result_free(result);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s METADATA_FILE\n", argv[0]);
        return 2;
    }
    char folder[] = "/tmp/ood-c-watch-XXXXXX";
    if (!mkdtemp(folder)) return 2;
    char path[512];
    snprintf(path, sizeof path, "%s/watch.store", folder);
    char *metadata = read_file(argv[1]);
    CHECK(metadata != NULL);
    ood_options *options = NULL;
    CHECK(ood_options_new(&options) == OOD_OK);
    CHECK(ood_options_set_path(options, path) == OOD_OK);
    CHECK(ood_options_set_metadata(options, metadata ? metadata : "") == OOD_OK);
    CHECK(ood_options_add_defining_request(options, "Agencies", "TravelagencyCollection?$filter=country eq 'US'") == OOD_OK);
    free(metadata);
    ood_store *store = NULL;
    CHECK(ood_store_open_with(options, &store) == OOD_OK);
    ood_options_free(options);
    if (!store) return check_summary("c_watch");

    /* The current answer at once, then the changed one. */
    answers boston;
    answers_init(&boston);
    ood_watcher *watch = NULL;
    CHECK(ood_watch(store, "TravelagencyCollection/$count", -1, on_answer, &boston, &watch) == OOD_OK && watch != NULL);
    CHECK(wait_for(&boston, "0") && boston.last_status == OOD_OK);
    post(store, "TravelagencyCollection", "{\"agencynum\":\"00000001\",\"name\":\"A\",\"city\":\"Boston\",\"country\":\"US\"}");
    CHECK(wait_for(&boston, "1"));

    /* A failed read is an answer: an entity that goes away, and comes back. */
    answers entity;
    answers_init(&entity);
    ood_watcher *entity_watch = NULL;
    CHECK(ood_watch(store, "TravelagencyCollection('00000002')", 0, on_answer, &entity, &entity_watch) == OOD_OK);
    CHECK(wait_count(&entity, 1) && entity.last_status == OOD_NOTFOUND && entity.last[0] != '\0');
    post(store, "TravelagencyCollection", "{\"agencynum\":\"00000002\",\"name\":\"B\",\"city\":\"Oslo\",\"country\":\"US\"}");
    CHECK(wait_for(&entity, "\"agencynum\":\"00000002\"") && entity.last_status == OOD_OK);
    ood_watch_stop(entity_watch);
    CHECK(wait_for(&boston, "2"));

    /* A write to another set runs nothing. */
    ood_int64 runs = -1, deliveries = -1;
    CHECK(ood_watch_counts(watch, &runs, &deliveries) == OOD_OK);
    post(store, "CarrierCollection", "{\"carrid\":\"XX\",\"carrname\":\"Carrier\"}");
    /* A second watch of the carriers sees the write, so the commit was published before it ran. */
    answers carriers;
    answers_init(&carriers);
    ood_watcher *carrier_watch = NULL;
    CHECK(ood_watch(store, "CarrierCollection/$count", 0, on_answer, &carriers, &carrier_watch) == OOD_OK);
    CHECK(wait_for(&carriers, "1"));
    ood_int64 runs_after = -1, deliveries_after = -1;
    CHECK(ood_watch_counts(watch, &runs_after, &deliveries_after) == OOD_OK);
    CHECK(runs_after == runs && deliveries_after == deliveries);

    /* Stopping from the watch's own callback: the call that stops is the last one. */
    answers stopper;
    answers_init(&stopper);
    stopper.stop_after = 2;
    ood_watcher *self_stopping = NULL;
    pthread_mutex_lock(&stopper.lock);
    CHECK(ood_watch(store, "TravelagencyCollection/$count", 0, on_answer, &stopper, &self_stopping) == OOD_OK);
    stopper.self = self_stopping;
    pthread_mutex_unlock(&stopper.lock);
    CHECK(wait_for(&stopper, "2"));
    post(store, "TravelagencyCollection", "{\"agencynum\":\"00000003\",\"name\":\"C\",\"city\":\"Boston\",\"country\":\"US\"}");
    CHECK(wait_for(&boston, "3"));
    post(store, "TravelagencyCollection", "{\"agencynum\":\"00000004\",\"name\":\"D\",\"city\":\"Boston\",\"country\":\"US\"}");
    CHECK(wait_for(&boston, "4"));
    CHECK(wait_for(&stopper, "3"));
    post(store, "TravelagencyCollection", "{\"agencynum\":\"00000005\",\"name\":\"E\",\"city\":\"Boston\",\"country\":\"US\"}");
    /* Runs happen one pass after the other on one thread: once the pass that delivers "5" to the
       first watch has run, the stopped watch would have had its "4". */
    CHECK(wait_for(&boston, "5"));
    CHECK(count_of(&stopper) == 2);

    /* Misuse. */
    ood_watcher *none = NULL;
    CHECK(ood_watch(store, "TravelagencyCollection", 0, NULL, NULL, &none) == OOD_MISUSE && none == NULL);
    CHECK(ood_watch(store, NULL, 0, on_answer, &boston, &none) == OOD_MISUSE && none == NULL);
    CHECK(ood_watch(store, "$metadata", 0, on_answer, &boston, &none) == OOD_UNSUPPORTED && none == NULL);
    CHECK(ood_watch(NULL, "TravelagencyCollection", 0, on_answer, &boston, &none) == OOD_MISUSE);
    CHECK(ood_watch_counts(NULL, &runs, &deliveries) == OOD_MISUSE);
    ood_watch_stop(NULL);

    /* Closing the store stops every watch; the handles are still released after it. */
    ood_store_close(store);
    int delivered = count_of(&boston);
    CHECK(delivered >= 5);
    ood_watch_stop(watch);
    ood_watch_stop(carrier_watch);
    CHECK(count_of(&boston) == delivered);
    return check_summary("c_watch");
}
