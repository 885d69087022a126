/* Call overhead: a C program calling into libofflineodata.so (Swift, @_cdecl) against the same
   program calling an equivalent function in a C shared library. Both are measured in one run,
   interleaved, and reported as medians of ns per call and their ratio. */
#define _POSIX_C_SOURCE 199309L
#include "offline_odata.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int baseline_version_number(void);

enum { CALLS = 20000000, SAMPLES = 15 };

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count) {
    qsort(values, (size_t)count, sizeof *values, compare);
    return values[count / 2];
}

/* The sum goes to a volatile sink, so the calls cannot be dropped. */
static volatile long sink;

static double time_library(void) {
    long sum = 0;
    double start = now_ns();
    for (int i = 0; i < CALLS; i++) sum += ood_version_number();
    double elapsed = now_ns() - start;
    sink = sum;
    return elapsed / CALLS;
}

static double time_baseline(void) {
    long sum = 0;
    double start = now_ns();
    for (int i = 0; i < CALLS; i++) sum += baseline_version_number();
    double elapsed = now_ns() - start;
    sink = sum;
    return elapsed / CALLS;
}

int main(void) {
    double library[SAMPLES], baseline[SAMPLES];
    time_library();
    time_baseline();
    for (int s = 0; s < SAMPLES; s++) {
        library[s] = time_library();
        baseline[s] = time_baseline();
    }
    double lib = median(library, SAMPLES), base = median(baseline, SAMPLES);
    printf("call overhead: C -> libofflineodata.so (ood_version_number) %.3f ns/call | "
           "baseline C -> C .so %.3f ns/call | ratio %.2f | budget: no measurable overhead "
           "(median of %d samples x %d calls)\n",
           lib, base, lib / base, SAMPLES, CALLS);
    return 0;
}
