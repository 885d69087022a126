/* Encrypted stores through the C API (docs/ENCRYPTION.md): a raw key and a passphrase in the
 * options, OOD_KEY for a wrong or missing key, no marker in the file, and ood_store_rekey from
 * plain to encrypted and back. An offline store made from the flight sample's $metadata.
 *
 *   test_encryption METADATA_FILE */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "offline_odata.h"
#include "check.h"
#include "read_file.h"

#include <stdlib.h>
#include <string.h>

static const char *marker = "MARKER-c-7f3a9";

/* Whether the file at `path` holds `needle`. */
static int file_contains(const char *path, const char *needle) {
    FILE *file = fopen(path, "rb");
    if (!file) return 0;
    static char bytes[1 << 22];
    size_t count = fread(bytes, 1, sizeof bytes, file);
    fclose(file);
    size_t length = strlen(needle);
    for (size_t i = 0; i + length <= count; i++) {
        if (memcmp(bytes + i, needle, length) == 0) return 1;
    }
    return 0;
}

static ood_options *options_for(const char *path, const char *metadata) {
    ood_options *options = NULL;
    CHECK(ood_options_new(&options) == OOD_OK);
    CHECK(ood_options_set_path(options, path) == OOD_OK);
    CHECK(ood_options_set_metadata(options, metadata) == OOD_OK);
    CHECK(ood_options_set_mode(options, OOD_MODE_OFFLINE) == OOD_OK);
    return options;
}

/* Opens with `options` and returns the status; writes one agency with the marker when asked. */
static ood_status open_and_write(ood_options *options, int write) {
    ood_store *store = NULL;
    ood_status status = ood_store_open_with(options, &store);
    if (status != OOD_OK) return status;
    if (write) {
        char body[256];
        snprintf(body, sizeof body, "{\"agencynum\":\"99000777\",\"name\":\"%s\",\"city\":\"Boston\"}", marker);
        ood_result *result = NULL;
        CHECK(ood_request(store, "POST", "TravelagencyCollection", body, &result) == OOD_OK);
        ood_result_free(result);
    }
    ood_store_close(store);
    return OOD_OK;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s METADATA_FILE\n", argv[0]);
        return 2;
    }
    char *metadata = read_file(argv[1]);
    char folder[] = "/tmp/ood-c-enc-XXXXXX";
    if (!metadata || !mkdtemp(folder)) return 2;
    char path[512], plain_path[512];
    snprintf(path, sizeof path, "%s/enc.store", folder);
    snprintf(plain_path, sizeof plain_path, "%s/plain.store", folder);
    unsigned char key[32], other[32];
    for (int i = 0; i < 32; i++) { key[i] = (unsigned char)i; other[i] = 7; }

    ood_options *keyed = options_for(path, metadata);
    CHECK(ood_options_set_key(keyed, key, 31) == OOD_KEY);
    CHECK(ood_options_set_key(keyed, key, 32) == OOD_OK);
    CHECK(open_and_write(keyed, 1) == OOD_OK);
    CHECK(!file_contains(path, marker));
    CHECK(!file_contains(path, "TravelagencyCollection"));

    ood_options *wrong = options_for(path, metadata);
    CHECK(ood_options_set_key(wrong, other, 32) == OOD_OK);
    CHECK(open_and_write(wrong, 0) == OOD_KEY);
    CHECK(strstr(ood_error_message(), "wrong key") != NULL);
    ood_options *none = options_for(path, metadata);
    CHECK(open_and_write(none, 0) == OOD_KEY);
    CHECK(strcmp(ood_status_name(OOD_KEY), "OOD_KEY") == 0);

    /* From the file alone (ood_store_open_keyed): the right key opens it and reads the write back;
     * a wrong key, none, or ood_store_open() fail with OOD_KEY; NULL options are ood_store_open(). */
    ood_store *alone = NULL;
    CHECK(ood_store_open_keyed(path, keyed, &alone) == OOD_OK && alone != NULL);
    ood_result *found = NULL;
    CHECK(alone && ood_request(alone, "GET", "TravelagencyCollection('99000777')", NULL, &found) == OOD_OK);
    const char *body = found ? ood_result_body(found, NULL) : NULL;
    CHECK(body && strstr(body, marker) != NULL);
    ood_result_free(found);
    ood_store_close(alone);
    alone = NULL;
    CHECK(ood_store_open_keyed(path, wrong, &alone) == OOD_KEY && alone == NULL);
    CHECK(ood_store_open_keyed(path, none, &alone) == OOD_KEY && alone == NULL);
    CHECK(ood_store_open_keyed(path, NULL, &alone) == OOD_KEY && alone == NULL);
    CHECK(ood_store_open(path, &alone) == OOD_KEY && alone == NULL);
    CHECK(ood_store_open_keyed(NULL, keyed, &alone) == OOD_MISUSE);
    CHECK(ood_store_open_keyed(path, keyed, NULL) == OOD_MISUSE);

    /* A plain store, encrypted in place with a passphrase, then decrypted. */
    ood_options *plain = options_for(plain_path, metadata);
    CHECK(open_and_write(plain, 1) == OOD_OK);
    CHECK(file_contains(plain_path, marker));
    ood_options *pass = options_for(plain_path, metadata);
    CHECK(ood_options_set_passphrase(pass, "") == OOD_KEY);
    CHECK(ood_options_set_passphrase(pass, "c passphrase") == OOD_OK);
    CHECK(ood_store_rekey(plain_path, NULL, pass) == OOD_OK);
    CHECK(!file_contains(plain_path, marker));
    CHECK(open_and_write(plain, 0) == OOD_KEY);
    CHECK(open_and_write(pass, 0) == OOD_OK);
    CHECK(ood_store_rekey(plain_path, keyed, NULL) == OOD_KEY);
    CHECK(ood_store_rekey(plain_path, pass, NULL) == OOD_OK);
    CHECK(file_contains(plain_path, marker));
    CHECK(open_and_write(plain, 0) == OOD_OK);
    CHECK(ood_store_rekey(NULL, NULL, NULL) == OOD_MISUSE);
    CHECK(ood_options_set_key(NULL, key, 32) == OOD_MISUSE);
    CHECK(ood_options_set_passphrase(NULL, "x") == OOD_MISUSE);

    /* ood_rekey: the open plain store encrypted with `keyed`, written to, then decrypted, still open. */
    ood_store *open_store = NULL;
    CHECK(ood_store_open_with(plain, &open_store) == OOD_OK);
    CHECK(ood_rekey(open_store, NULL) == OOD_MISUSE);
    CHECK(ood_rekey(NULL, keyed) == OOD_MISUSE);
    CHECK(ood_rekey(open_store, keyed) == OOD_OK);
    CHECK(!file_contains(plain_path, marker));
    ood_result *written = NULL;
    CHECK(ood_request(open_store, "POST", "TravelagencyCollection",
                      "{\"agencynum\":\"99000778\",\"name\":\"after rekey\",\"city\":\"Boston\"}", &written) == OOD_OK);
    ood_result_free(written);
    ood_store *elsewhere = NULL;
    CHECK(ood_store_open_keyed(plain_path, NULL, &elsewhere) == OOD_KEY && elsewhere == NULL);
    CHECK(ood_store_open_keyed(plain_path, keyed, &elsewhere) == OOD_OK);
    /* Another handle on the file: the rekey refuses, the store goes on with its key. */
    CHECK(ood_rekey(open_store, NULL) == OOD_BUSY);
    ood_store_close(elsewhere);
    CHECK(ood_rekey(open_store, NULL) == OOD_OK);
    CHECK(file_contains(plain_path, marker));
    ood_result *count = NULL;
    CHECK(ood_request(open_store, "GET", "TravelagencyCollection/$count", NULL, &count) == OOD_OK);
    CHECK(count && strcmp(ood_result_body(count, NULL), "2") == 0);
    ood_result_free(count);
    ood_store_close(open_store);
    CHECK(open_and_write(plain, 0) == OOD_OK);

    /* A shared device (docs/SHARED-DEVICE.md), a key per user: a store bound to alice by her open
     * refuses bob and no user (OOD_OTHER_USER), and bob's key cannot even read it; handed over to
     * bob with his key, alice's write is recorded as discarded and the file opens for bob only. */
    char user_path[512];
    snprintf(user_path, sizeof user_path, "%s/users.store", folder);
    ood_options *alice = options_for(user_path, metadata);
    CHECK(ood_options_set_key(alice, key, 32) == OOD_OK);
    CHECK(ood_options_set_user(alice, "alice") == OOD_OK);
    CHECK(open_and_write(alice, 1) == OOD_OK);
    char *holder = NULL;
    CHECK(ood_store_user(user_path, alice, &holder) == OOD_OK && holder && strcmp(holder, "alice") == 0);
    ood_string_free(holder);
    ood_options *nobody = options_for(user_path, metadata);
    CHECK(ood_options_set_key(nobody, key, 32) == OOD_OK);
    CHECK(open_and_write(nobody, 0) == OOD_OTHER_USER);
    CHECK(strstr(ood_error_message(), "'alice'") != NULL && strstr(ood_error_message(), "1 change(s) pending") != NULL);
    CHECK(ood_options_set_user(nobody, "bob") == OOD_OK);
    CHECK(open_and_write(nobody, 0) == OOD_OTHER_USER);
    CHECK(strcmp(ood_status_name(OOD_OTHER_USER), "OOD_OTHER_USER") == 0);
    ood_options *bob = options_for(user_path, metadata);
    CHECK(ood_options_set_key(bob, other, 32) == OOD_OK);
    CHECK(ood_options_set_user(bob, "bob") == OOD_OK);
    CHECK(open_and_write(bob, 0) == OOD_KEY);
    char *outcome = NULL;
    CHECK(ood_store_hand_over(user_path, alice, "bob", NULL, "discard", NULL, &outcome) == OOD_MISUSE && outcome == NULL);
    CHECK(ood_store_hand_over(user_path, alice, "bob", bob, "toss", NULL, &outcome) == OOD_MISUSE);
    CHECK(ood_store_hand_over(user_path, alice, "bob", bob, "discard", NULL, &outcome) == OOD_OK);
    CHECK(outcome && strstr(outcome, "\"discarded\":1") && strstr(outcome, "\"previousUser\":\"alice\""));
    ood_string_free(outcome);
    CHECK(open_and_write(alice, 0) == OOD_KEY);
    CHECK(open_and_write(bob, 0) == OOD_OK);
    holder = NULL;
    CHECK(ood_store_user(user_path, bob, &holder) == OOD_OK && holder && strcmp(holder, "bob") == 0);
    ood_string_free(holder);
    CHECK(ood_options_set_user(NULL, "x") == OOD_MISUSE);
    CHECK(ood_options_set_user(bob, NULL) == OOD_OK);
    CHECK(ood_store_hand_over(NULL, NULL, "bob", NULL, "discard", NULL, NULL) == OOD_MISUSE);
    CHECK(ood_store_hand_over(user_path, NULL, NULL, NULL, "discard", NULL, NULL) == OOD_MISUSE);
    CHECK(ood_store_hand_over(user_path, NULL, "bob", NULL, NULL, NULL, NULL) == OOD_MISUSE);
    CHECK(ood_store_user(NULL, NULL, &holder) == OOD_MISUSE);
    CHECK(ood_store_user(user_path, bob, NULL) == OOD_MISUSE);
    ood_options_free(alice);
    ood_options_free(nobody);
    ood_options_free(bob);

    ood_options_free(keyed);
    ood_options_free(wrong);
    ood_options_free(none);
    ood_options_free(plain);
    ood_options_free(pass);
    free(metadata);
    char command[600];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    if (system(command) != 0) fprintf(stderr, "could not remove %s\n", folder);
    return check_summary("c_encryption");
}
