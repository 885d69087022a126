/* Media streams from C (issue 35, docs/MEDIA.md): a defining request that retrieves streams, the
 * stream limits, a stream's file read in place, the bytes of a large upload in its progress events,
 * and V4 stream properties read and replaced, against the V4 test service serving the media model
 * (Tests/scripts/with_backend.sh PYTHON v4 --media 3:70000 -- test_media_c SERVICE_ROOT). */
#define _DEFAULT_SOURCE /* mkdtemp, clock_gettime */
#include <pthread.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "offline_odata.h"
#include "check.h"

/* Bytes of the file at `path`, read in pieces (-1 when it cannot be opened). */
static long file_length(const char *path) {
    FILE *file = fopen(path, "rb");
    if (!file) return -1;
    char buffer[8192];
    long total = 0;
    size_t count;
    while ((count = fread(buffer, 1, sizeof buffer, file)) > 0) total += (long)count;
    fclose(file);
    return total;
}

/* Writes `size` bytes made from their position to `path`; 0 when it cannot. */
static int write_file(const char *path, long size) {
    FILE *out = fopen(path, "wb");
    if (!out) return 0;
    for (long i = 0; i < size; i++) fputc((int)((i * 7) % 251), out);
    return fclose(out) == 0;
}

/* What the upload events said: how often `bytesSent` grew, its last value, and the end. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int growing;
    long long bytes_sent;
    int finished;
} upload_events;

static void on_upload_event(int kind, const char *details, void *payload) {
    upload_events *seen = payload;
    pthread_mutex_lock(&seen->lock);
    if (kind == OOD_EVENT_UPLOAD_PROGRESS) {
        const char *member = strstr(details, "\"bytesSent\":");
        long long bytes = member ? strtoll(member + strlen("\"bytesSent\":"), NULL, 10) : -1;
        if (bytes > seen->bytes_sent) {
            seen->growing++;
            seen->bytes_sent = bytes;
        }
    } else if (kind == OOD_EVENT_UPLOAD_FINISHED) {
        seen->finished = 1;
    }
    pthread_cond_broadcast(&seen->changed);
    pthread_mutex_unlock(&seen->lock);
}

/* Waits (60 s at most) for the upload's finished event, which follows its progress events. */
static int wait_finished(upload_events *seen) {
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 60;
    pthread_mutex_lock(&seen->lock);
    while (!seen->finished) {
        if (pthread_cond_timedwait(&seen->changed, &seen->lock, &deadline) != 0) break;
    }
    int finished = seen->finished;
    pthread_mutex_unlock(&seen->lock);
    return finished;
}

static ood_store *open_store(const char *path, const char *root, ood_int64 max_stream) {
    ood_options *options = NULL;
    CHECK(ood_options_new(&options) == OOD_OK);
    CHECK(ood_options_set_path(options, path) == OOD_OK);
    CHECK(ood_options_set_service_root(options, root) == OOD_OK);
    CHECK(ood_options_add_defining_request_streams(options, "Documents", "Documents") == OOD_OK);
    CHECK(ood_options_add_defining_request_streams(options, "Documents", "Documents") == OOD_MISUSE);
    CHECK(ood_options_add_defining_request_streams(options, "", "Documents") == OOD_MISUSE);
    CHECK(ood_options_add_defining_request(options, "Notes", "Notes") == OOD_OK);
    CHECK(ood_options_set_stream_limits(options, -1, 0) == OOD_MISUSE);
    CHECK(ood_options_set_stream_limits(options, max_stream, 0) == OOD_OK);
    ood_store *store = NULL;
    CHECK(ood_store_open_with(options, &store) == OOD_OK && store != NULL);
    ood_options_free(options);
    return store;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s SERVICE_ROOT (Tests/scripts/with_backend.sh ... --media 3:70000 gives it)\n", argv[0]);
        return 2;
    }
    char folder[] = "/tmp/ood-c-media-XXXXXX";
    if (!mkdtemp(folder)) return 2;
    char path[600];
    snprintf(path, sizeof path, "%s/media.store", folder);

    /* The first open downloads: the three streams come with their entities. */
    ood_store *store = open_store(path, argv[1], 0);
    char *file = NULL, *type = NULL;
    ood_int64 length = 0;
    CHECK(ood_stream_file(store, "Documents(2)/$value", &file, &length, &type) == OOD_OK);
    CHECK(file != NULL && type != NULL && length == 70000);
    CHECK(type && strcmp(type, "application/pdf") == 0);
    CHECK(file && file_length(file) == 70000);
    CHECK(file && strstr(file, "media.store.streams/") != NULL);
    ood_string_free(file);
    ood_string_free(type);
    /* Length and type may be left out; the key URL alone works too. */
    file = NULL;
    CHECK(ood_stream_file(store, "Documents(3)", &file, NULL, NULL) == OOD_OK && file != NULL);
    ood_string_free(file);

    file = (char *)"untouched";
    CHECK(ood_stream_file(store, "Documents(99)/$value", &file, &length, NULL) == OOD_NOTFOUND);
    CHECK(file == NULL && length == 0);
    CHECK(ood_stream_file(store, "Notes(1)/$value", &file, NULL, NULL) == OOD_SEMANTIC);
    CHECK(ood_stream_file(store, NULL, &file, NULL, NULL) == OOD_MISUSE);
    CHECK(ood_stream_file(store, "Documents(1)", NULL, NULL, NULL) == OOD_MISUSE);
    CHECK(ood_stream_file(NULL, "Documents(1)", &file, NULL, NULL) == OOD_MISUSE);
    /* GET of its $value through the request API: the stream's bytes from its file. */
    ood_result *value = NULL;
    CHECK(ood_request(store, "GET", "Documents(2)/$value", NULL, &value) == OOD_OK && value != NULL);
    size_t value_length = 0;
    CHECK(value && ood_result_body(value, &value_length) != NULL && value_length == 70000);
    CHECK(value && strcmp(ood_result_content_type(value), "application/pdf") == 0);
    ood_result_free(value);
    CHECK(ood_stream_replace(store, NULL, "x", "text/plain") == OOD_MISUSE);
    CHECK(ood_stream_replace(NULL, "Documents(1)", "x", "text/plain") == OOD_MISUSE);
    CHECK(ood_options_set_stream_limits(NULL, 1, 1) == OOD_MISUSE);
    CHECK(ood_options_add_defining_request_streams(NULL, "a", "b") == OOD_MISUSE);
    /* A media entity created offline from a file: readable at once, uploaded as POST then PATCH. */
    char photo[600];
    snprintf(photo, sizeof photo, "%s/photo.bin", folder);
    FILE *out = fopen(photo, "wb");
    CHECK(out != NULL);
    if (out) {
        for (int i = 0; i < 5000; i++) fputc(i % 251, out);
        fclose(out);
    }
    ood_result *created = NULL;
    CHECK(ood_stream_create(store, "Documents", photo, "image/png", "{\"title\":\"from C\"}", &created) == OOD_OK);
    CHECK(created != NULL && ood_result_status(created) == 201);
    ood_result_free(created);
    file = NULL;
    CHECK(ood_stream_file(store, "Documents(-1)/$value", &file, &length, NULL) == OOD_OK && length == 5000);
    ood_string_free(file);
    CHECK(ood_stream_create(store, "Notes", photo, "image/png", NULL, &created) == OOD_SEMANTIC && created == NULL);
    /* Its stream replaced before the upload: the create sends the new content, no PUT. */
    CHECK(ood_stream_replace(store, "Documents(-1)", photo, "image/png") == OOD_OK);
    CHECK(ood_stream_replace(store, "Documents(99)", photo, "image/png") == OOD_NOTFOUND);
    long sent = 0, archived = 0;
    CHECK(ood_upload(store, NULL, NULL, &sent, &archived) == OOD_OK && sent == 1 && archived == 0);
    file = NULL;
    type = NULL;
    CHECK(ood_stream_file(store, "Documents(4)/$value", &file, &length, &type) == OOD_OK && length == 5000);
    CHECK(type && strcmp(type, "image/png") == 0);
    CHECK(file && file_length(file) == 5000);
    ood_string_free(file);
    ood_string_free(type);
    ood_result *entity = NULL;
    CHECK(ood_request(store, "GET", "Documents(4)", NULL, &entity) == OOD_OK);
    CHECK(entity && strstr(ood_result_body(entity, NULL), "from C") != NULL);
    ood_result_free(entity);

    /* A 3 MiB stream replaced and uploaded: its bytes are reported while they travel, in upload
     * progress events whose bytesSent grows at each MiB, before the upload's end. */
    char big[600];
    snprintf(big, sizeof big, "%s/big.bin", folder);
    CHECK(write_file(big, 3L << 20));
    CHECK(ood_stream_replace(store, "Documents(2)", big, "application/octet-stream") == OOD_OK);
    upload_events seen = {.growing = 0, .bytes_sent = 0, .finished = 0};
    pthread_mutex_init(&seen.lock, NULL);
    pthread_cond_init(&seen.changed, NULL);
    ood_subscription *subscription = NULL;
    CHECK(ood_subscribe(store, on_upload_event, &seen, &subscription) == OOD_OK);
    CHECK(ood_upload(store, NULL, NULL, &sent, &archived) == OOD_OK && sent == 1 && archived == 0);
    CHECK(wait_finished(&seen));
    ood_subscription_free(subscription);
    pthread_mutex_lock(&seen.lock);
    CHECK(seen.growing >= 3);
    CHECK(seen.bytes_sent >= (3LL << 20));
    pthread_mutex_unlock(&seen.lock);
    CHECK(ood_stream_file(store, "Documents(2)/$value", &file, &length, NULL) == OOD_OK && length == (3L << 20));
    ood_string_free(file);

    char *check = NULL;
    CHECK(ood_store_check(store, 0, &check) == OOD_OK && check != NULL);
    CHECK(check && strstr(check, "\"stream\"") == NULL);
    ood_string_free(check);
    ood_store_close(store);

    /* V4 stream properties (Inspections' photo and signature; Inspections(3) has no signature):
     * downloaded, read as files and through the request API, replaced and uploaded as a PUT. */
    char visits[600];
    snprintf(visits, sizeof visits, "%s/visits.store", folder);
    ood_options *visit_options = NULL;
    CHECK(ood_options_new(&visit_options) == OOD_OK);
    CHECK(ood_options_set_path(visit_options, visits) == OOD_OK);
    CHECK(ood_options_set_service_root(visit_options, argv[1]) == OOD_OK);
    CHECK(ood_options_add_defining_request_streams(visit_options, "Inspections", "Inspections") == OOD_OK);
    ood_store *visit = NULL;
    CHECK(ood_store_open_with(visit_options, &visit) == OOD_OK && visit != NULL);
    ood_options_free(visit_options);
    if (visit) {
        file = NULL;
        type = NULL;
        CHECK(ood_stream_file(visit, "Inspections(1)/photo", &file, &length, &type) == OOD_OK);
        CHECK(length == 70000 && file && file_length(file) == 70000);
        CHECK(type && strcmp(type, "image/jpeg") == 0);
        ood_string_free(file);
        ood_string_free(type);
        ood_result *signature = NULL;
        CHECK(ood_request(visit, "GET", "Inspections(2)/signature", NULL, &signature) == OOD_OK);
        CHECK(signature && ood_result_body(signature, &value_length) != NULL && value_length == 300);
        ood_result_free(signature);
        file = NULL;
        CHECK(ood_stream_file(visit, "Inspections(3)/signature", &file, NULL, NULL) == OOD_NOTFOUND && file == NULL);
        CHECK(ood_stream_file(visit, "Inspections(1)/place", &file, NULL, NULL) == OOD_SEMANTIC);

        char sketch[600];
        snprintf(sketch, sizeof sketch, "%s/sketch.png", folder);
        CHECK(write_file(sketch, 12345));
        CHECK(ood_stream_replace(visit, "Inspections(3)/signature", sketch, "image/png") == OOD_OK);
        file = NULL;
        type = NULL;
        CHECK(ood_stream_file(visit, "Inspections(3)/signature", &file, &length, &type) == OOD_OK && length == 12345);
        CHECK(type && strcmp(type, "image/png") == 0);
        ood_string_free(file);
        ood_string_free(type);
        CHECK(ood_upload(visit, NULL, NULL, &sent, &archived) == OOD_OK && sent == 1 && archived == 0);
        /* The service has it now: a download keeps the same bytes, and the check finds nothing. */
        CHECK(ood_download(visit, NULL, NULL) == OOD_OK);
        ood_result *uploaded = NULL;
        CHECK(ood_request(visit, "GET", "Inspections(3)/signature", NULL, &uploaded) == OOD_OK);
        CHECK(uploaded && ood_result_body(uploaded, &value_length) != NULL && value_length == 12345);
        CHECK(uploaded && strcmp(ood_result_content_type(uploaded), "image/png") == 0);
        ood_result_free(uploaded);
        check = NULL;
        CHECK(ood_store_check(visit, 0, &check) == OOD_OK && check && strstr(check, "\"stream\"") == NULL);
        ood_string_free(check);
        ood_store_close(visit);
    }

    /* Another store of the same service with a limit below the streams' size: refused, no file. */
    char small[600];
    snprintf(small, sizeof small, "%s/small.store", folder);
    ood_options *options = NULL;
    CHECK(ood_options_new(&options) == OOD_OK);
    CHECK(ood_options_set_path(options, small) == OOD_OK);
    CHECK(ood_options_set_service_root(options, argv[1]) == OOD_OK);
    CHECK(ood_options_add_defining_request_streams(options, "Documents", "Documents") == OOD_OK);
    CHECK(ood_options_set_stream_limits(options, 1000, 0) == OOD_OK);
    ood_store *limited = NULL;
    CHECK(ood_store_open_with(options, &limited) != OOD_OK || limited != NULL);
    ood_options_free(options);
    if (limited) {
        CHECK(ood_download(limited, NULL, NULL) == OOD_HTTP);
        file = NULL;
        CHECK(ood_stream_file(limited, "Documents(1)/$value", &file, NULL, NULL) == OOD_NOTFOUND);
        ood_store_close(limited);
    }
    return check_summary("c media");
}
