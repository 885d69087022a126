/* A minimal check macro for the C tests: counts, prints failures with their line, and a summary. */
#ifndef OOD_TEST_CHECK_H
#define OOD_TEST_CHECK_H
#include <stdio.h>

static int check_passed = 0;
static int check_failed = 0;

#define CHECK(cond)                                                                   \
    do {                                                                              \
        if (cond) {                                                                   \
            check_passed++;                                                           \
        } else {                                                                      \
            check_failed++;                                                           \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
        }                                                                             \
    } while (0)

/* Prints "N passed, M failed" and returns the process exit code. */
static int check_summary(const char *suite) {
    printf("%s: %d passed, %d failed\n", suite, check_passed, check_failed);
    return check_failed == 0 ? 0 : 1;
}
#endif
