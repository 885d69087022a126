/* Media streams from C (issue 35, docs/MEDIA.md): a defining request that retrieves streams, the
 * stream limits, and a stream's file read in place, against the V4 test service serving the media
 * model (Tests/scripts/with_backend.sh PYTHON v4 --media 3:70000 -- test_media_c SERVICE_ROOT). */
#define _DEFAULT_SOURCE /* mkdtemp */
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

    char *check = NULL;
    CHECK(ood_store_check(store, 0, &check) == OOD_OK && check != NULL);
    CHECK(check && strstr(check, "\"stream\"") == NULL);
    ood_string_free(check);
    ood_store_close(store);

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
