/* The read of `read (a)` through the C API (ood_request), on the store `offline-odata-benchmarks
 * read-api PATH` made, against that program's median for the same read through the store API
 * from Swift, measured just before in the same `make bench` run.
 *
 *   ood_bench_read_api STORE_PATH SWIFT_MEDIAN_NS */
#define _POSIX_C_SOURCE 200809L
#include <offline_odata.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s STORE_PATH SWIFT_MEDIAN_NS\n", argv[0]);
        return 2;
    }
    double swift_ns = atof(argv[2]);
    ood_options *options = NULL;
    ood_store *store = NULL;
    if (ood_options_new(&options) != OOD_OK || ood_options_set_path(options, argv[1]) != OOD_OK ||
        ood_options_set_mode(options, OOD_MODE_OFFLINE) != OOD_OK || ood_store_open_with(options, &store) != OOD_OK) {
        fprintf(stderr, "open: %s\n", ood_error_message());
        return 1;
    }
    ood_options_free(options);
    enum { SAMPLES = 21, ITERATIONS = 2000 };
    double times[SAMPLES];
    size_t sink = 0;
    for (int sample = -2; sample < SAMPLES; sample++) { /* two warm-up rounds */
        long long start = now_ns();
        for (int i = 0; i < ITERATIONS; i++) {
            ood_result *result = NULL;
            if (ood_request(store, "GET", "Agencies?$filter=City eq 'City7'&$top=20", NULL, &result) != OOD_OK) {
                fprintf(stderr, "read: %s\n", ood_error_message());
                return 1;
            }
            size_t length = 0;
            ood_result_body(result, &length);
            sink += length;
            ood_result_free(result);
        }
        if (sample >= 0) times[sample] = (double)(now_ns() - start) / ITERATIONS;
    }
    qsort(times, SAMPLES, sizeof times[0], compare);
    double median = times[SAMPLES / 2];
    printf("read-api: $top=20 through ood_request (C): %.2f µs | baseline the same read through ODataStore (Swift): %.2f µs"
           " | ratio %.2f | budget: no measurable difference beyond the JSON hand-over (%zu bytes read)\n",
           median / 1000, swift_ns / 1000, swift_ns > 0 ? median / swift_ns : 0, sink / ((SAMPLES + 2) * (size_t)ITERATIONS));
    ood_store_close(store);
    return 0;
}
