/* Local reads through the C API (ood_request, the body taken, the result freed), for the Python
 * binding's per-call benchmark (Benchmarks/python/binding_call_cost.py): the baseline the binding's
 * reads of the same URLs on the same store are compared with, in the same run.
 *
 *   ood_bench_read_urls STORE_PATH ITERATIONS URL...
 *
 * Prints one line per URL: "<median ns per read> <URL>", the median of SAMPLES rounds of
 * ITERATIONS reads (after one warm-up round). */
#define _POSIX_C_SOURCE 200809L
#include <offline_odata.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { SAMPLES = 9 };

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* One round of `iterations` reads of `url`: nanoseconds per read, or a negative value on error. */
static double round_ns(ood_store *store, const char *url, long iterations, size_t *sink) {
    long long start = now_ns();
    for (long i = 0; i < iterations; i++) {
        ood_result *result = NULL;
        if (ood_request(store, "GET", url, NULL, &result) != OOD_OK) return -1;
        size_t length = 0;
        const char *body = ood_result_body(result, &length);
        *sink += length + (body != NULL);
        ood_result_free(result);
    }
    return (double)(now_ns() - start) / (double)iterations;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s STORE_PATH ITERATIONS URL...\n", argv[0]);
        return 2;
    }
    long iterations = atol(argv[2]);
    if (iterations <= 0) {
        fprintf(stderr, "ITERATIONS must be a positive number\n");
        return 2;
    }
    ood_options *options = NULL;
    ood_store *store = NULL;
    if (ood_options_new(&options) != OOD_OK || ood_options_set_path(options, argv[1]) != OOD_OK ||
        ood_options_set_mode(options, OOD_MODE_OFFLINE) != OOD_OK || ood_store_open_with(options, &store) != OOD_OK) {
        fprintf(stderr, "open: %s\n", ood_error_message());
        return 1;
    }
    ood_options_free(options);
    size_t sink = 0;
    for (int u = 3; u < argc; u++) {
        double times[SAMPLES];
        for (int sample = -1; sample < SAMPLES; sample++) {
            double ns = round_ns(store, argv[u], iterations, &sink);
            if (ns < 0) {
                fprintf(stderr, "read %s: %s\n", argv[u], ood_error_message());
                ood_store_close(store);
                return 1;
            }
            if (sample >= 0) times[sample] = ns;
        }
        qsort(times, SAMPLES, sizeof times[0], compare);
        printf("%.0f %s\n", times[SAMPLES / 2], argv[u]);
    }
    fflush(stdout);
    ood_store_close(store);
    return sink == 0; /* every read gave a body */
}
