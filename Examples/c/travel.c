/* The whole offline loop from C: open a store on a service with a defining request, read offline,
 * change offline, upload, download again.
 *
 *   travel STORE_FILE SERVICE_ROOT
 *
 * Every call returns an ood_status; ood_error_message() says why one failed. */
#include <offline_odata.h>
#include <stdio.h>
#include <string.h>

static int failed(const char *what, ood_status status) {
    fprintf(stderr, "%s: %s (%s)\n", what, ood_error_message(), ood_status_name(status));
    return 1;
}

static int progress(long done, long total, void *payload) {
    (void)payload;
    printf("  downloaded %ld of %ld\n", done, total);
    return 0; /* non-zero would stop the download */
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s STORE_FILE SERVICE_ROOT\n", argv[0]);
        return 2;
    }
    ood_options *options = NULL;
    ood_status status = ood_options_new(&options);
    if (status == OOD_OK) status = ood_options_set_path(options, argv[1]);
    if (status == OOD_OK) status = ood_options_set_service_root(options, argv[2]);
    if (status == OOD_OK)
        status = ood_options_add_defining_request(options, "Agencies", "TravelagencyCollection?$filter=country eq 'US'");
    if (status != OOD_OK) return failed("options", status);

    /* Opening a new store downloads its defining requests before it returns. */
    ood_store *store = NULL;
    status = ood_store_open_with(options, &store);
    ood_options_free(options);
    if (status != OOD_OK) return failed("open", status);

    ood_result *result = NULL;
    status = ood_request(store, "GET", "TravelagencyCollection/$count", NULL, &result);
    if (status != OOD_OK) return failed("count", status);
    printf("agencies in the store: %s\n", ood_result_body(result, NULL));
    ood_result_free(result);

    status = ood_request(store, "POST", "TravelagencyCollection",
                         "{\"agencynum\":\"99000777\",\"name\":\"Example Travel\",\"city\":\"Boston\",\"country\":\"US\"}",
                         &result);
    if (status != OOD_OK) return failed("create", status);
    printf("created offline: HTTP %d\n", ood_result_status(result));
    ood_result_free(result);

    long sent = 0, archived = 0;
    status = ood_upload(store, NULL, NULL, &sent, &archived);
    if (status != OOD_OK) return failed("upload", status);
    printf("uploaded: %ld sent, %ld refused\n", sent, archived);

    status = ood_download(store, progress, NULL);
    if (status != OOD_OK) return failed("download", status);
    status = ood_request(store, "GET", "TravelagencyCollection('99000777')", NULL, &result);
    if (status != OOD_OK) return failed("read back", status);
    printf("after the download: %s\n", strstr(ood_result_body(result, NULL), "Example Travel") ? "the agency is there" : "missing");
    ood_result_free(result);
    ood_store_close(store);
    return 0;
}
