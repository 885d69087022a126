/* One-entity reads and pages through the C API against plain SQLite on the same rows with the same
 * indexes, in one run (issue 38, target 2: at most 1.5x). The stores are made by
 * `offline-odata-benchmarks read-scale-stores ENTITIES STORE PLAIN` (the engine's store, loaded by
 * the engine with its declared index on Name and its automatic index on Code; the plain database
 * with indexes on Name and Code and ANALYZE).
 *
 *   ood_bench_read_vs_sqlite STORE PLAIN ENTITIES
 *
 * Each read is timed in alternating rounds (ITERATIONS reads through ood_request, then through
 * ood_get_into into a buffer of the caller's, then the plain statement), SAMPLES rounds after one
 * warm-up round each; one line per read gives the medians and their ratios. The plain side is a
 * prepared statement, reset, bound and stepped, every column read by its type: SQLite's own work
 * with no OData around it (no URL, no JSON). */
#define _POSIX_C_SOURCE 200809L
#include <offline_odata.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { SAMPLES = 15, ITERATIONS = 2000, BUFFER = 1 << 16 };

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *values, int count) {
    qsort(values, (size_t)count, sizeof values[0], compare);
    return values[count / 2];
}

/* One read: its URL through the store, its SQL and parameter on the plain database. */
struct read {
    const char *label;
    char url[128];
    const char *sql;
    int parameter_is_text; /* 0: integer, 1: text, -1: none */
    long long integer;
    char text[64];
};

static int engine_round(ood_store *store, const char *url, size_t *sink) {
    for (int i = 0; i < ITERATIONS; i++) {
        ood_result *result = NULL;
        if (ood_request(store, "GET", url, NULL, &result) != OOD_OK) return -1;
        size_t length = 0;
        ood_result_body(result, &length);
        *sink += length;
        ood_result_free(result);
    }
    return 0;
}

static int engine_into_round(ood_store *store, const char *url, char *buffer, size_t *sink) {
    for (int i = 0; i < ITERATIONS; i++) {
        ood_answer_view view;
        ood_result *spill = NULL;
        if (ood_get_into(store, url, buffer, BUFFER, &view, &spill) != OOD_OK) return -1;
        *sink += view.length;
        if (spill != NULL) ood_result_free(spill);
    }
    return 0;
}

static int plain_round(sqlite3_stmt *statement, const struct read *read, size_t *sink) {
    int columns = sqlite3_column_count(statement);
    for (int i = 0; i < ITERATIONS; i++) {
        sqlite3_reset(statement);
        if (read->parameter_is_text == 1) sqlite3_bind_text(statement, 1, read->text, -1, SQLITE_TRANSIENT);
        if (read->parameter_is_text == 0) sqlite3_bind_int64(statement, 1, read->integer);
        int rows = 0;
        while (sqlite3_step(statement) == SQLITE_ROW) {
            rows++;
            for (int c = 0; c < columns; c++) {
                switch (sqlite3_column_type(statement, c)) {
                case SQLITE_INTEGER: *sink += (size_t)sqlite3_column_int64(statement, c); break;
                case SQLITE_FLOAT: *sink += (size_t)sqlite3_column_double(statement, c); break;
                case SQLITE_TEXT: case SQLITE_BLOB: *sink += (size_t)sqlite3_column_bytes(statement, c); break;
                default: break;
                }
            }
        }
        if (rows == 0) return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s STORE PLAIN ENTITIES\n", argv[0]);
        return 2;
    }
    long long count = atoll(argv[3]);
    if (count < 1000) {
        fprintf(stderr, "ENTITIES must be at least 1000\n");
        return 2;
    }
    long long key = count / 2 + 7, low = count - count / 10;
    struct read reads[5];
    memset(reads, 0, sizeof reads);
    reads[0] = (struct read){"(k) one entity by its key", "", "SELECT * FROM agencies WHERE ID = ?1", 0, key, ""};
    snprintf(reads[0].url, sizeof reads[0].url, "Agencies(%lld)", key);
    reads[1] = (struct read){"(c) key range, $top=20", "", "SELECT * FROM agencies WHERE ID > ?1 ORDER BY ID LIMIT 20", 0, low, ""};
    snprintf(reads[1].url, sizeof reads[1].url, "Agencies?$filter=ID gt %lld&$top=20", low);
    reads[2] = (struct read){"(d) filter on the declared-indexed Name", "", "SELECT * FROM agencies WHERE Name = ?1 ORDER BY ID", 1, 0, ""};
    snprintf(reads[2].text, sizeof reads[2].text, "Agency %lld", count / 2 + 7);
    snprintf(reads[2].url, sizeof reads[2].url, "Agencies?$filter=Name eq '%s'", reads[2].text);
    reads[3] = (struct read){"(e) $orderby on the declared-indexed Name, $top=20", "Agencies?$orderby=Name&$top=20",
                             "SELECT * FROM agencies ORDER BY Name, ID LIMIT 20", -1, 0, ""};
    reads[4] = (struct read){"(f) filter on Code, automatically indexed", "", "SELECT * FROM agencies WHERE Code = ?1 ORDER BY ID", 1, 0, ""};
    snprintf(reads[4].text, sizeof reads[4].text, "C%lld", count / 3 + 11);
    snprintf(reads[4].url, sizeof reads[4].url, "Agencies?$filter=Code eq '%s'", reads[4].text);

    ood_options *options = NULL;
    ood_store *store = NULL;
    if (ood_options_new(&options) != OOD_OK || ood_options_set_path(options, argv[1]) != OOD_OK ||
        ood_options_set_mode(options, OOD_MODE_OFFLINE) != OOD_OK || ood_store_open_with(options, &store) != OOD_OK) {
        fprintf(stderr, "open %s: %s\n", argv[1], ood_error_message());
        return 1;
    }
    ood_options_free(options);
    sqlite3 *plain = NULL;
    if (sqlite3_open_v2(argv[2], &plain, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        fprintf(stderr, "open %s: %s\n", argv[2], sqlite3_errmsg(plain));
        return 1;
    }
    char *buffer = malloc(BUFFER);
    if (buffer == NULL) return 1;
    size_t sink = 0;
    int failed = 0;
    for (size_t r = 0; r < sizeof reads / sizeof reads[0]; r++) {
        const struct read *read = &reads[r];
        sqlite3_stmt *statement = NULL;
        if (sqlite3_prepare_v2(plain, read->sql, -1, &statement, NULL) != SQLITE_OK) {
            fprintf(stderr, "prepare %s: %s\n", read->sql, sqlite3_errmsg(plain));
            failed = 1;
            break;
        }
        double engine[SAMPLES], into[SAMPLES], floor[SAMPLES];
        for (int sample = -1; sample < SAMPLES; sample++) {
            long long start = now_ns();
            int status = engine_round(store, read->url, &sink);
            long long middle = now_ns();
            status |= engine_into_round(store, read->url, buffer, &sink);
            long long end = now_ns();
            status |= plain_round(statement, read, &sink);
            long long plain_end = now_ns();
            if (status != 0) {
                fprintf(stderr, "read %s: %s\n", read->url, ood_error_message());
                failed = 1;
                break;
            }
            if (sample >= 0) {
                engine[sample] = (double)(middle - start) / ITERATIONS;
                into[sample] = (double)(end - middle) / ITERATIONS;
                floor[sample] = (double)(plain_end - end) / ITERATIONS;
            }
        }
        sqlite3_finalize(statement);
        if (failed) break;
        double e = median(engine, SAMPLES), i = median(into, SAMPLES), f = median(floor, SAMPLES);
        printf("read %lld %s through the C API: ood_request %.2f µs, ood_get_into %.2f µs | baseline plain SQLite with the index,"
               " stepped: %.2f µs | ratio %.2f and %.2f | budget <= 1.5x\n",
               count, read->label, e / 1000, i / 1000, f / 1000, e / f, i / f);
    }
    fflush(stdout);
    free(buffer);
    sqlite3_close(plain);
    ood_store_close(store);
    return failed || sink == 0;
}
