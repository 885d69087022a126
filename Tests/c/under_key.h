/* The C suites under a key (make test-encrypted): with OOD_TEST_STORE_KEY set to 64 hex digits,
 * every store a C test opens is opened with that raw key through the public API (options given
 * the key with ood_options_set_key(); a store opened from its file alone through
 * ood_store_open_keyed()), so the suites run unchanged over encrypted store files. Without the
 * variable the calls go straight through. Include it after offline_odata.h. */
#ifndef OOD_TEST_UNDER_KEY_H
#define OOD_TEST_UNDER_KEY_H
#include <stdlib.h>
#include <string.h>
#include "offline_odata.h"

/* The key of OOD_TEST_STORE_KEY in `bytes`; 0 when it is not set (or not 64 hex digits). */
static inline int under_key_bytes(unsigned char bytes[32]) {
    const char *text = getenv("OOD_TEST_STORE_KEY");
    if (text == NULL || strlen(text) != 64) return 0;
    for (int i = 0; i < 32; i++) {
        char pair[3] = {text[2 * i], text[2 * i + 1], 0};
        char *end = NULL;
        unsigned long value = strtoul(pair, &end, 16);
        if (end != pair + 2) return 0;
        bytes[i] = (unsigned char)value;
    }
    return 1;
}

/* Gives `options` (the test's own, so not really const) the key, when there is one. */
static inline void under_key_give(const ood_options *options) {
    unsigned char bytes[32];
    if (options != NULL && under_key_bytes(bytes)) (void)ood_options_set_key((ood_options *)options, bytes, 32);
}

static inline ood_status under_key_open(const char *path, ood_store **out) {
    unsigned char bytes[32];
    if (!under_key_bytes(bytes)) return ood_store_open(path, out);
    ood_options *key = NULL;
    if (ood_options_new(&key) != OOD_OK) return OOD_ERROR;
    (void)ood_options_set_key(key, bytes, 32);
    ood_status status = ood_store_open_keyed(path, key, out);
    ood_options_free(key);
    return status;
}

static inline ood_status under_key_open_with(const ood_options *options, ood_store **out) {
    under_key_give(options);
    return ood_store_open_with(options, out);
}

static inline ood_status under_key_open_async(const ood_options *options, ood_completion completion, void *payload,
                                              ood_store **out) {
    under_key_give(options);
    return ood_store_open_async(options, completion, payload, out);
}

#define ood_store_open(path, out) under_key_open(path, out)
#define ood_store_open_with(options, out) under_key_open_with(options, out)
#define ood_store_open_async(options, completion, payload, out) under_key_open_async(options, completion, payload, out)
#endif
