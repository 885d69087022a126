/* The C test of the store functions: every function in the header, its errors and NULL arguments. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "offline_odata.h"
#include "check.h"
#include "under_key.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char folder[] = "/tmp/ood-c-test-XXXXXX";

static void path_in_folder(char *out, size_t size, const char *name) {
    snprintf(out, size, "%s/%s", folder, name);
}

static void write_file(const char *path, const char *content) {
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs(content, f);
        fclose(f);
    }
}

static void test_version(void) {
    CHECK(strcmp(ood_version(), OOD_VERSION) == 0);
    CHECK(ood_version_number() == OOD_VERSION_NUMBER);
    CHECK(OOD_VERSION_NUMBER == OOD_VERSION_MAJOR * 1000000 + OOD_VERSION_MINOR * 1000 + OOD_VERSION_PATCH);
}

static void test_status_names(void) {
    CHECK(strcmp(ood_status_name(OOD_OK), "OOD_OK") == 0);
    CHECK(strcmp(ood_status_name(OOD_CANTOPEN), "OOD_CANTOPEN") == 0);
    CHECK(strcmp(ood_status_name(OOD_BUSY), "OOD_BUSY") == 0);
    CHECK(strcmp(ood_status_name(12345), "OOD_UNKNOWN") == 0);
    CHECK(strcmp(ood_status_name(-1), "OOD_UNKNOWN") == 0);
}

static void test_open_create_and_reopen(void) {
    char path[512];
    path_in_folder(path, sizeof path, "new.store");
    ood_store *store = NULL;
    CHECK(ood_store_open(path, &store) == OOD_OK);
    CHECK(store != NULL);
    CHECK(strcmp(ood_error_message(), "not an error") == 0);
    CHECK(ood_error_offset() == -1);

    int version = -1;
    CHECK(ood_store_format_version(store, &version) == OOD_OK);
    CHECK(version == 14);

    char *copy = NULL;
    CHECK(ood_store_path(store, &copy) == OOD_OK);
    CHECK(copy != NULL && strcmp(copy, path) == 0);
    ood_string_free(copy);
    CHECK(ood_store_close(store) == OOD_OK);

    /* WAL mode leaves a -wal file next to a store while it is open. */
    store = NULL;
    CHECK(ood_store_open(path, &store) == OOD_OK);
    char wal[560];
    snprintf(wal, sizeof wal, "%s-wal", path);
    CHECK(access(wal, F_OK) == 0);
    version = 0;
    CHECK(ood_store_format_version(store, &version) == OOD_OK && version == 14);
    CHECK(ood_store_close(store) == OOD_OK);
}

static void test_open_errors(void) {
    ood_store *store = (ood_store *)&store; /* not NULL, so the reset to NULL is visible */
    char path[512];

    path_in_folder(path, sizeof path, "no-such-folder/x.store");
    CHECK(ood_store_open(path, &store) == OOD_CANTOPEN);
    CHECK(store == NULL);
    CHECK(strstr(ood_error_message(), "cannot open") != NULL);

    path_in_folder(path, sizeof path, "text.store");
    write_file(path, "this is a text file, not a database, and it is long enough to be read as one....."
                     "................................................................................");
    store = (ood_store *)&store;
    CHECK(ood_store_open(path, &store) == OOD_NOTASTORE);
    CHECK(store == NULL);
    CHECK(strstr(ood_error_message(), "not an OfflineOData store") != NULL);

    CHECK(ood_store_open(folder, &store) == OOD_CANTOPEN);

    CHECK(ood_store_open("", &store) == OOD_MISUSE);
    CHECK(strstr(ood_error_message(), "empty") != NULL);
}

/* An empty file is never taken for a new store; ood_store_check() on a file-level handle reports
 * what is wrong: here a queued request whose entity is missing is not possible without a model, so
 * a sound store gives "[]" and a damaged file SQLite's findings. */
static void test_empty_file_and_check(void) {
    char path[512];
    path_in_folder(path, sizeof path, "empty.store");
    write_file(path, "");
    ood_store *store = (ood_store *)&store;
    CHECK(ood_store_open(path, &store) == OOD_NOTASTORE && store == NULL);
    CHECK(strstr(ood_error_message(), "empty file (0 bytes)") != NULL);
    CHECK(strstr(ood_error_message(), path) != NULL);

    path_in_folder(path, sizeof path, "checked.store");
    CHECK(ood_store_open(path, &store) == OOD_OK);
    char *json = NULL;
    CHECK(ood_store_check(store, 0, &json) == OOD_OK && json != NULL && strcmp(json, "[]") == 0);
    ood_string_free(json);
    CHECK(ood_store_close(store) == OOD_OK);

    /* Every page after the first overwritten: the check lists SQLite's findings. */
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    if (f) {
        static char junk[16384 * 3];
        memset(junk, 'Z', sizeof junk);
        fseek(f, 16384, SEEK_SET);
        fwrite(junk, 1, sizeof junk, f);
        fclose(f);
    }
    store = NULL;
    if (ood_store_open(path, &store) == OOD_OK) {
        CHECK(ood_store_check(store, 1, &json) == OOD_OK && json != NULL && strstr(json, "\"check\":\"sqlite\"") != NULL);
        ood_string_free(json);
        CHECK(ood_store_close(store) == OOD_OK);
    } else {
        /* Damage SQLite sees on opening is an error naming the file. */
        CHECK(strstr(ood_error_message(), path) != NULL);
    }
}

static void test_null_arguments(void) {
    ood_store *store = NULL;
    char path[512];
    path_in_folder(path, sizeof path, "null.store");

    CHECK(ood_store_open(NULL, &store) == OOD_MISUSE);
    CHECK(strstr(ood_error_message(), "path is NULL") != NULL);
    CHECK(ood_store_open(path, NULL) == OOD_MISUSE);
    CHECK(strstr(ood_error_message(), "out is NULL") != NULL);

    int version = 7;
    CHECK(ood_store_format_version(NULL, &version) == OOD_MISUSE);
    CHECK(version == 0);
    char *copy = (char *)path;
    CHECK(ood_store_path(NULL, &copy) == OOD_MISUSE);
    CHECK(copy == NULL);

    CHECK(ood_store_open(path, &store) == OOD_OK);
    CHECK(ood_store_format_version(store, NULL) == OOD_MISUSE);
    CHECK(ood_store_path(store, NULL) == OOD_MISUSE);
    CHECK(ood_store_close(store) == OOD_OK);

    CHECK(ood_store_close(NULL) == OOD_OK);
    ood_string_free(NULL);
}

static void remove_folder(void) {
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    if (system(command) != 0) fprintf(stderr, "could not remove %s\n", folder);
}

int main(void) {
    if (!mkdtemp(folder)) {
        perror("mkdtemp");
        return 2;
    }
    test_version();
    test_status_names();
    test_open_create_and_reopen();
    test_open_errors();
    test_null_arguments();
    test_empty_file_and_check();
    remove_folder();
    return check_summary("C store test");
}
