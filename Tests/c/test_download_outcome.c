/* What ood_download_json says of a download against the real V4 service behind the fault proxy
 * (Tests/scripts/with_fault_proxy.py: answers in pages of 5, so the 40 agencies come in 8 pages,
 * and the 11th request for them cut half-way through its answer: page 3 of the second download,
 * after the 8 pages of the first download when the store is made).
 * A download cut part-way keeps the pages before the cut; the next one resumes after them and says
 * so ("resumedAtPage" > 1, "fetchedPages" below "pages"); one that starts at the first page says
 * nothing of a resume and fetched every page. */
#define _DEFAULT_SOURCE /* mkdtemp */
#include "offline_odata.h"
#include "check.h"
#include "under_key.h"
#include "read_file.h"

#include <stdlib.h>
#include <string.h>

/* The number after "key": in `json` (the first one), or -1 when the key is not there. */
static long json_number(const char *json, const char *key) {
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *found = json ? strstr(json, pattern) : NULL;
    return found ? strtol(found + strlen(pattern), NULL, 10) : -1;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s METADATA_XML SERVICE_ROOT (Tests/scripts/with_fault_proxy.py gives the root)\n", argv[0]);
        return 2;
    }
    char folder[] = "/tmp/ood-c-download-XXXXXX";
    char *metadata = read_file(argv[1]);
    if (!metadata || !mkdtemp(folder)) {
        fprintf(stderr, "cannot read %s or make a folder\n", argv[1]);
        return 2;
    }
    char path[600];
    snprintf(path, sizeof path, "%s/agencies.store", folder);
    ood_options *options = NULL;
    CHECK(ood_options_new(&options) == OOD_OK);
    CHECK(ood_options_set_path(options, path) == OOD_OK);
    CHECK(ood_options_set_service_root(options, argv[2]) == OOD_OK);
    CHECK(ood_options_set_metadata(options, metadata) == OOD_OK);
    CHECK(ood_options_add_defining_request(options, "Agencies", "TravelagencyCollection") == OOD_OK);
    CHECK(ood_options_set_timeouts(options, 10, 60) == OOD_OK);
    ood_store *store = NULL;
    CHECK(ood_store_open_with(options, &store) == OOD_OK && store != NULL);  /* the first download: 8 pages */
    ood_options_free(options);
    const char *agencies[] = {"Agencies", NULL};

    /* Cut at its third page: nothing answered, the pages before it kept. */
    char *json = (char *)"not touched";
    CHECK(ood_download_json(store, agencies, 1, NULL, NULL, &json) == OOD_NETWORK);
    CHECK(json == NULL);

    CHECK(ood_download_json(store, agencies, 1, NULL, NULL, &json) == OOD_OK && json != NULL);
    long pages = json_number(json, "pages"), fetched = json_number(json, "fetchedPages");
    long resumed = json_number(json, "resumedAtPage");
    CHECK(strstr(json, "\"definingRequest\":\"Agencies\"") != NULL);
    CHECK(pages == 8 && json_number(json, "entities") == 40);
    CHECK(resumed > 1 && resumed <= 3);
    CHECK(fetched > 0 && fetched < pages && fetched == pages - (resumed - 1));
    if (check_failed) fprintf(stderr, "resumed download: %s\n", json ? json : "(null)");
    ood_string_free(json);

    /* Uninterrupted: from the first page, every page fetched. */
    json = NULL;
    CHECK(ood_download_json(store, NULL, 1, NULL, NULL, &json) == OOD_OK && json != NULL);
    CHECK(json_number(json, "resumedAtPage") == -1 && strstr(json, "resumedAtPage") == NULL);
    CHECK(json_number(json, "pages") == 8 && json_number(json, "fetchedPages") == 8);
    CHECK(strstr(json, "\"delta\":false") != NULL);
    ood_string_free(json);

    /* A name the store has no defining request for: nothing downloaded, no JSON. */
    const char *unknown[] = {"NoSuchRequest", NULL};
    json = (char *)"not touched";
    CHECK(ood_download_json(store, unknown, 0, NULL, NULL, &json) == OOD_MISUSE && json == NULL);

    /* With flags (ood_download_flags): whole and without the service model's check, the JSON
     * optional; an unknown flag is refused before anything is asked. */
    CHECK(ood_download_flags(store, agencies, OOD_DOWNLOAD_FULL | OOD_DOWNLOAD_NO_MODEL_CHECK, NULL, NULL, NULL) == OOD_OK);
    json = NULL;
    CHECK(ood_download_flags(store, NULL, OOD_DOWNLOAD_FULL, NULL, NULL, &json) == OOD_OK && json != NULL);
    CHECK(json_number(json, "pages") == 8 && strstr(json, "\"delta\":false") != NULL);
    ood_string_free(json);
    json = (char *)"not touched";
    CHECK(ood_download_flags(store, agencies, 4, NULL, NULL, &json) == OOD_MISUSE && json == NULL);

    CHECK(ood_store_close(store) == OOD_OK);
    char command[700];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    if (system(command) != 0) fprintf(stderr, "could not remove %s\n", folder);
    free(metadata);
    return check_summary("c_download_outcome");
}
