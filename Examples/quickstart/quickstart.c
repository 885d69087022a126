/* The offline loop from C: open a store on a service with a defining request (a new store
 * downloads it), read offline, create an agency offline, upload it.
 *   quickstart [SERVICE_ROOT]        (or set OOD_SERVICE) */
#include <offline_odata.h>
#include <stdio.h>
#include <stdlib.h>

/* Every call returns a status; after a failure, ood_error_message() says why. */
static int ok(ood_status status, const char *step) {
    if (status != OOD_OK) fprintf(stderr, "%s: %s (%s)\n", step, ood_error_message(), ood_status_name(status));
    return status == OOD_OK;
}

int main(int argc, char **argv) {
    const char *service = argc > 1 ? argv[1] : getenv("OOD_SERVICE");
    if (service == NULL) {
        fprintf(stderr, "usage: %s SERVICE_ROOT (or set OOD_SERVICE)\n", argv[0]);
        return 2;
    }
    ood_options *options = NULL;
    ood_store *store = NULL;
    ood_result *read = NULL, *created = NULL;
    long sent = 0, refused = 0;
    int status = 1;
    if (!ok(ood_options_new(&options), "options") || !ok(ood_options_set_path(options, "quickstart-c.store"), "path")
        || !ok(ood_options_set_service_root(options, service), "service root")
        || !ok(ood_options_add_defining_request(options, "Agencies", "TravelagencyCollection?$filter=country eq 'US'"),
               "defining request")
        || !ok(ood_store_open_with(options, &store), "open")) goto end;
    if (!ok(ood_request(store, "GET", "TravelagencyCollection?$filter=city eq 'New York'&$select=name", NULL, &read),
            "read")) goto end;
    printf("read offline: %s\n", ood_result_body(read, NULL));
    if (!ok(ood_request(store, "POST", "TravelagencyCollection",
                        "{\"agencynum\":\"99000101\",\"name\":\"Quickstart C\",\"city\":\"New York\",\"country\":\"US\"}",
                        &created), "create")) goto end;
    printf("created offline: HTTP %d\n", ood_result_status(created));
    if (!ok(ood_upload(store, NULL, NULL, &sent, &refused), "upload")) goto end;
    printf("uploaded: %ld sent, %ld refused\n", sent, refused);
    status = refused == 0 ? 0 : 1;
end:
    ood_result_free(read);
    ood_result_free(created);
    ood_options_free(options);
    if (store != NULL && !ok(ood_store_close(store), "close")) status = 1;
    return status;
}
