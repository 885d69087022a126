/*
 * offline_odata.h: the C interface of OfflineOData, an embeddable offline OData store engine.
 *
 * This header is written by hand and is the contract. The shared library libofflineodata.so
 * (SONAME libofflineodata.so.0) exports exactly the functions declared here, and carries the
 * Swift runtime inside, so a C program needs only libsqlite3, libxml2, libcurl and libc.
 *
 * RULES THAT HOLD FOR EVERY FUNCTION
 *
 * Status. Every function that can fail returns an ood_status: OOD_OK (0) on success, another
 *   value on failure. New status values may be added in later versions: treat any value you do
 *   not know as a generic error (as OOD_ERROR).
 *
 * Error details. After a failing call, ood_error_message() returns its message and
 *   ood_error_offset() the character offset of the fault in text input (a URL, a $filter, a
 *   document), or -1. Both are per thread and describe the most recent call on that thread of a
 *   function that returns ood_status; a successful call resets them. Do not decide whether a call
 *   failed from them: examine its return value.
 *
 * Ownership.
 *   1. A handle returned through an `out` pointer belongs to the caller and is released with its
 *      own function (ood_store_close for ood_store). Release functions accept NULL.
 *   2. Strings passed in are UTF-8, NUL-terminated, and copied: the library keeps no pointer to
 *      the caller's memory after a call returns.
 *   3. Strings passed out are either borrowed (`const char *`: valid as long as the function's
 *      documentation says, never freed by the caller) or owned (`char **out`: released with
 *      ood_string_free, never with free()).
 *   4. On failure, every `out` pointer is set to NULL (or to 0 for numbers).
 *
 * Threads. The library may be called from any thread. A store handle is serialized internally
 *   and may be shared between threads; it must not be used after ood_store_close returns.
 *   Callbacks (in later versions) run on a library thread, take `void *payload` last, and
 *   stop the operation by returning non-zero. A callback that calls back into its own store gets
 *   OOD_BUSY, never a deadlock.
 *
 * Crashes. No input makes the library abort: NULL pointers and bad text give a status.
 */
#ifndef OFFLINE_ODATA_H
#define OFFLINE_ODATA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define OOD_API __attribute__((visibility("default")))
#else
#define OOD_API
#endif

/** @name Version
 *  @{ */

#define OOD_VERSION_MAJOR 0
#define OOD_VERSION_MINOR 1
#define OOD_VERSION_PATCH 0
/** "MAJOR.MINOR.PATCH" of this header. */
#define OOD_VERSION "0.1.0"
/** MAJOR * 1000000 + MINOR * 1000 + PATCH of this header. */
#define OOD_VERSION_NUMBER 1000

/**
 * The library's version as "MAJOR.MINOR.PATCH".
 *
 * @return A static string.
 * Ownership: borrowed for the life of the process; never free it.
 * Thread safety: any thread.
 */
OOD_API const char *ood_version(void);

/**
 * The library's version as MAJOR * 1000000 + MINOR * 1000 + PATCH, to compare with
 * OOD_VERSION_NUMBER from the header a program was compiled against.
 *
 * Thread safety: any thread.
 */
OOD_API int ood_version_number(void);

/** @} */

/** @name Status and errors
 *  @{ */

/**
 * The result of a call. Values are stable across versions; new ones may be added.
 */
typedef enum ood_status {
    OOD_OK = 0,            /**< Success. */
    OOD_ERROR = 1,         /**< An unexpected internal error (reported instead of a crash). */
    OOD_MISUSE = 2,        /**< The API was used wrongly: a NULL or empty argument, a closed handle. */
    OOD_CANTOPEN = 3,      /**< A store file could not be opened or created at the path. */
    OOD_NOTASTORE = 4,     /**< The file is not an OfflineOData store (or is of a newer format). */
    OOD_STORAGE = 5,       /**< SQLite failed while reading or writing the store. */
    OOD_METADATA = 6,      /**< A $metadata document is malformed or inconsistent. */
    OOD_SYNTAX = 7,        /**< A URL or expression is not well formed; see ood_error_offset(). */
    OOD_SEMANTIC = 8,      /**< A request names what the model lacks, or has the wrong types. */
    OOD_UNSUPPORTED = 9,   /**< Valid OData this store does not do (a function import offline). */
    OOD_NETWORK = 10,      /**< The service could not be reached, or the connection failed. */
    OOD_HTTP = 11,         /**< The service answered with an HTTP error status. */
    OOD_NOTFOUND = 12,     /**< The addressed entity or resource does not exist. */
    OOD_CONSTRAINT = 13,   /**< A write breaks a constraint of the model. */
    OOD_ABORTED = 14,      /**< A callback asked to stop, or the operation was cancelled. */
    OOD_BUSY = 15          /**< The store is busy: a callback called back into its own store. */
} ood_status;

/**
 * The message of the most recent call on this thread that returned an ood_status.
 *
 * @return "not an error" after a success. Never NULL.
 * Ownership: borrowed; valid until the next call on this thread that returns an ood_status.
 * Thread safety: per thread.
 */
OOD_API const char *ood_error_message(void);

/**
 * For a failure in text input, the 0-based character offset of the fault; otherwise -1.
 *
 * Thread safety: per thread, like ood_error_message().
 */
OOD_API long ood_error_offset(void);

/**
 * A short English name for a status ("OOD_CANTOPEN"); "OOD_UNKNOWN" for a value this version
 * does not know.
 *
 * Ownership: borrowed for the life of the process; never free it.
 * Thread safety: any thread.
 */
OOD_API const char *ood_status_name(int status);

/**
 * Releases a string the library returned as owned (through a `char **out`).
 *
 * @param s The string, or NULL (nothing happens).
 * Thread safety: any thread.
 */
OOD_API void ood_string_free(char *s);

/** @} */

/** @name Store
 *  @{ */

/** An open store file. Opaque. */
typedef struct ood_store ood_store;

/**
 * Opens the store file at `path`, creating it if there is no file there.
 *
 * A new store is an SQLite database in WAL mode with a format-version table. An existing store of
 * an older format is migrated.
 *
 * @param path UTF-8 path of the store file.
 * @param[out] out Receives the store handle, or NULL on failure.
 * @return OOD_OK; OOD_MISUSE if `path` or `out` is NULL or `path` is empty; OOD_CANTOPEN if the
 *         file cannot be opened or created; OOD_NOTASTORE if the file is not a store.
 * Ownership: the handle belongs to the caller; release it with ood_store_close().
 * Thread safety: any thread.
 */
OOD_API ood_status ood_store_open(const char *path, ood_store **out);

/**
 * Closes a store and releases its handle.
 *
 * @param store The store, or NULL (nothing happens).
 * @return OOD_OK.
 * Ownership: the handle is invalid afterwards.
 * Thread safety: any thread, once no other thread uses the handle.
 */
OOD_API ood_status ood_store_close(ood_store *store);

/**
 * The format version of an open store file.
 *
 * @param store The store.
 * @param[out] out Receives the format version (2 for stores of this version), or 0 on failure.
 * @return OOD_OK; OOD_MISUSE if `store` or `out` is NULL; OOD_STORAGE on an SQLite failure.
 * Thread safety: any thread.
 */
OOD_API ood_status ood_store_format_version(ood_store *store, int *out);

/**
 * The path the store was opened with.
 *
 * @param store The store.
 * @param[out] out Receives a copy of the path, or NULL on failure.
 * @return OOD_OK; OOD_MISUSE if `store` or `out` is NULL.
 * Ownership: the string belongs to the caller; release it with ood_string_free().
 * Thread safety: any thread.
 */
OOD_API ood_status ood_store_path(ood_store *store, char **out);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* OFFLINE_ODATA_H */
