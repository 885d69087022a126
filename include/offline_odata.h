/*
 * offline_odata.h: the C interface of OfflineOData, an embeddable offline OData store engine.
 *
 * This header is written by hand and is the contract. The shared library libofflineodata.so
 * (SONAME libofflineodata.so.0) exports exactly the functions declared here, and carries the
 * Swift runtime inside: it needs libsqlite3, libxml2, libcurl and libcrypto (OpenSSL, for encrypted
 * stores), and the C and C++ runtime of the system (libc, libm, libstdc++, libgcc_s), no Swift
 * library (the export check verifies this list).
 *
 * RULES THAT HOLD FOR EVERY FUNCTION
 *
 * Status. Every function that can fail returns an ood_status: OOD_OK (0) on success, another
 *   value on failure. New status values may be added in later versions: treat any value you do
 *   not know as a generic error (as OOD_ERROR).
 *
 * Error details. After a failing call, ood_error_message() returns its message,
 *   ood_error_offset() the character offset of the fault in text input (a URL, a $filter, a
 *   document), or -1, and, when the service refused the request, ood_error_http_status() its HTTP
 *   status and ood_error_header() the headers of its answer. All are per thread and describe the
 *   most recent call on that thread of a function that returns ood_status; a successful call resets
 *   them. Do not decide whether a call failed from them: examine its return value.
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
 * Threads. The library may be called from any thread. A store handle may be shared between
 *   threads (reads run side by side, writes one at a time in the order issued); it must not be
 *   used after ood_store_close returns. Callbacks (completions, progress, events) run on a
 *   library thread (the progress callbacks of a blocking download or upload may run on the
 *   calling thread, when no other download or upload of the store runs: the call waits anyway)
 *   and take `void *payload` last; progress callbacks stop their operation by returning
 *   non-zero. From inside a callback, the blocking functions of the same store
 *   (ood_request, ood_request_with_headers, ood_request_in_transaction, ood_request_page, ood_route, ood_route_json,
 *   ood_download, ood_download_with, ood_download_json, ood_download_flags, ood_upload, ood_upload_preview, ood_explain, ood_store_status, ood_store_sync_log, ood_store_check, ood_error_archive, ood_error_archive_delete,
 *   ood_error_archive_requeue, ood_request_queue, ood_queue_compact, ood_request_unmerged, ood_metadata, ood_undo, ood_redownload) return
 *   OOD_BUSY, never a deadlock; the asynchronous ones (ood_request_async, ood_request_start,
 *   ood_call_cancel) and ood_subscribe / ood_subscription_free work. ood_subscription_free
 *   returns once the events posted before it reached the callback (a short program that ends its
 *   subscription right after ood_upload sees the upload's events); no callback runs after it.
 *
 * Crashes. No input makes the library abort: NULL pointers and bad text give a status.
 *
 * valgrind. The library is clean under valgrind's default memcheck (undefined values tracked):
 *   the C and C++ quickstarts run under it with --error-exitcode in the tests (no suppression file).
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

/** A 64-bit integer (`long long`), written so that `-std=c89 -pedantic` does not warn about it:
 *  C90 has no `long long`, and GCC and Clang accept it there when marked `__extension__`. */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(__cplusplus) \
    && (!defined(__STDC_VERSION__) || __STDC_VERSION__ < 199901L)
__extension__ typedef long long ood_int64;
#else
typedef long long ood_int64;
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
    OOD_BUSY = 15,         /**< The store is busy: a callback called back into its own store, or
                                another upload of the same store file runs. */
    OOD_KEY = 16,          /**< An encrypted store opened without its key or with a wrong one, or a
                                plain store opened with a key (docs/ENCRYPTION.md). */
    OOD_OTHER_USER = 17    /**< The store belongs to another user: opened for a user other than the one
                                it is bound to, or for none; hand it over first (docs/SHARED-DEVICE.md). */
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
 * When the most recent failing call on this thread failed because the service answered with an
 * HTTP error status (a request online, a download, a re-download), that status (404, 412, ...);
 * otherwise 0, also after a success. The status is in the message too; this is for programs.
 *
 * Thread safety: per thread, like ood_error_message().
 */
OOD_API int ood_error_http_status(void);

/**
 * A header of the service's error answer that made the most recent failing call on this thread
 * fail (see ood_error_http_status()): `ETag` (the entity's current version after a 412),
 * `Retry-After`, `Content-Type`, any other by name.
 *
 * @param name The header's name, compared without case.
 * @return Its value (a repeated header's values joined with ", "); NULL when the answer has no such
 *         header, when the failure was no answer of the service, after a success, and for NULL.
 * Ownership: borrowed; valid until the next call on this thread that returns an ood_status.
 * Thread safety: per thread, like ood_error_message().
 */
OOD_API const char *ood_error_header(const char *name);

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
 * Opens the store at `path` as its file describes it, creating the file if there is none there.
 * The handle is the one kind every function takes: the file's saved $metadata, defining requests,
 * indexes and service root serve offline reads, local writes, the queue, the error archive, status,
 * explain and check, as with ood_store_open_with() giving only the path. Opening sends nothing to
 * the service (a defining request never downloaded stays so until ood_download()). Download,
 * upload and re-download need the service root the file keeps (it keeps the one it was first opened
 * with): without one they fail with OOD_MISUSE, saying to open with ood_store_open_with() and a
 * service root. A file with no model yet (a new one made here), or one whose store does not open,
 * answers the file-level questions (format version, path, check); its requests fail with
 * OOD_MISUSE (or the error its store failed with), saying to open it with ood_store_open_with()
 * and its $metadata or a service root. Settings of the options (mode,
 * authentication, headers, limits, $batch uploads) take their defaults here.
 *
 * A new store is an SQLite database in WAL mode with a format-version table, made whole or not at
 * all (built beside the path and moved into place), and only where no file is: a file that is there
 * and is not a store, an empty one included, is OOD_NOTASTORE (ood_options_set_accept_empty_file()
 * accepts an empty one for ood_store_open_with()). An existing store of an older format is migrated.
 * A write-protected store (the file or its folder) opens for reads; a write, download or upload then
 * fails with OOD_STORAGE, its message saying "read-only". A store its last user left open (a crash)
 * gets SQLite's quick check on opening; a damaged one fails with OOD_STORAGE (see ood_store_check()).
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
 * @param[out] out Receives the format version (10 for the stores this version makes or migrates;
 *        it grows by one with each migration), or 0 on failure.
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

/** @name Options: how a store is opened
 *  An ood_options collects the settings of ood_store_open_with(). It is copied when a store
 *  opens, so it may be changed or freed afterwards. Every setter: any thread, but one options
 *  object must not be changed from two threads at once; the setters keep no pointer to the
 *  caller's strings.
 *  @{ */

/** Settings for opening a store. Opaque. */
typedef struct ood_options ood_options;

/** Which store answers requests (see ood_route()). */
typedef enum ood_mode {
    OOD_MODE_MIXED = 0,   /**< Covered collections offline, the rest (and function imports) online. The default. */
    OOD_MODE_ONLINE = 1,  /**< Every request goes to the service. */
    OOD_MODE_OFFLINE = 2  /**< Every request goes to the offline store. */
} ood_mode;

/**
 * Makes an empty set of options (mixed mode, no path, no service).
 *
 * @param[out] out Receives the options, or NULL on failure.
 * @return OOD_OK; OOD_MISUSE if `out` is NULL.
 * Ownership: the caller's; release with ood_options_free().
 * Thread safety: any thread; one options object must not be changed from two threads at once.
 */
OOD_API ood_status ood_options_new(ood_options **out);

/** Releases options; NULL does nothing. Thread safety: as ood_options_new(). */
OOD_API void ood_options_free(ood_options *options);

/**
 * The store file. Without one the store works online only.
 * @return OOD_OK; OOD_MISUSE if an argument is NULL or `path` is empty.
 */
OOD_API ood_status ood_options_set_path(ood_options *options, const char *path);

/**
 * The OData service root ("https://host/sap/opu/odata/sap/RMTSAMPLEFLIGHT_SRV/"). Without one, a
 * store file's own service root is used; with neither, the store works offline only. A new file (or
 * one without a root) keeps it; a root that differs from the file's is used while the store is
 * open and not saved in the file, unless ood_options_set_service_root_saved() says so. Delta links
 * of another service are never followed: such a download is a full one.
 * @return OOD_OK; OOD_MISUSE if an argument is NULL or the root is not an absolute URL.
 */
OOD_API ood_status ood_options_set_service_root(ood_options *options, const char *service_root);

/**
 * Whether a service root that differs from the store file's replaces it in the file (1), for every
 * later open, or is used only while this store is open (0, the default). Saving drops the file's
 * delta links: the next download is a full one.
 * @return OOD_OK; OOD_MISUSE for NULL.
 */
OOD_API ood_status ood_options_set_service_root_saved(ood_options *options, int saved);

/**
 * The service's $metadata document, to create a store file without asking the service.
 * @return OOD_OK; OOD_MISUSE if an argument is NULL.
 */
OOD_API ood_status ood_options_set_metadata(ood_options *options, const char *metadata);

/**
 * Adds a defining request: a read whose results the offline store holds, under a unique name.
 * @return OOD_OK; OOD_MISUSE if an argument is NULL or empty, or the name is used already.
 */
OOD_API ood_status ood_options_add_defining_request(ood_options *options, const char *name, const char *url);

/**
 * Declares an index on properties of an entity set, made when the store opens if its file lacks it
 * (indexes made before stay). Reads that filter or order on them use it; ood_store_status lists it.
 * @param properties one property, or several in index order, separated by commas ("country,city");
 *                   a complex property's member as "address/city".
 * @return OOD_OK; OOD_MISUSE if an argument is NULL or empty or a property name is empty. A set or
 *         property the model lacks fails the open with OOD_MISUSE.
 */
OOD_API ood_status ood_options_add_index(ood_options *options, const char *entity_set, const char *properties);

/** The working mode (an ood_mode value). @return OOD_OK; OOD_MISUSE for NULL or an unknown mode. */
OOD_API ood_status ood_options_set_mode(ood_options *options, int mode);

/**
 * Basic authentication for the service. The password is copied and kept in memory only.
 * @return OOD_OK; OOD_MISUSE if an argument is NULL.
 */
OOD_API ood_status ood_options_set_basic_auth(ood_options *options, const char *user, const char *password);

/** Bearer-token authentication for the service. @return OOD_OK; OOD_MISUSE if an argument is NULL. */
OOD_API ood_status ood_options_set_bearer_token(ood_options *options, const char *token);

/**
 * Adds a header sent with every request to the service.
 * @return OOD_OK; OOD_MISUSE for NULL, an empty name, a name with a control character, white space
 *         or a colon, or a value with CR, LF (a header of its own) or NUL.
 */
OOD_API ood_status ood_options_add_header(ood_options *options, const char *name, const char *value);

/**
 * Seconds to wait for a connection and for a whole request (defaults 15 and 300).
 * @return OOD_OK; OOD_MISUSE for NULL or a value not above 0.
 */
OOD_API ood_status ood_options_set_timeouts(ood_options *options, double connect_seconds, double request_seconds);

/**
 * TLS for the service: verify its certificate and host name (`verify` non-zero, the default), with
 * the CA certificates of `ca_file` (PEM) and/or the folder `ca_path`, or the system's (both NULL).
 * @return OOD_OK; OOD_MISUSE if `options` is NULL.
 */
OOD_API ood_status ood_options_set_tls(ood_options *options, int verify, const char *ca_file, const char *ca_path);

/**
 * Adds a cookie sent with every request to the service (the cookies it sets are kept too).
 * @return OOD_OK; OOD_MISUSE for NULL, an empty name, a name with a control character, white space,
 *         '=', ';' or ',', or a value with CR, LF, NUL or ';'.
 */
OOD_API ood_status ood_options_add_cookie(ood_options *options, const char *name, const char *value);

/**
 * Limits on what the service may send (it is not trusted): the most bytes of one answer's body,
 * counted after decompression (default 256 MiB), and the most pages one download of a defining
 * request follows (default 1,000,000); 0 keeps a default. A read the service answers whole (its
 * pages joined) keeps to both: its pages together have at most that many bytes, and there are at
 * most that many. A larger answer or more pages stop the request or the download with
 * OOD_NETWORK, the store unchanged.
 * @return OOD_OK; OOD_MISUSE for NULL or a negative limit.
 */
OOD_API ood_status ood_options_set_limits(ood_options *options, ood_int64 max_response_size, ood_int64 max_pages);

/** What ood_options_set_limit() sets. Every limit refuses with a clear error and leaves the store unchanged. */
typedef enum ood_limit {
    OOD_LIMIT_RESPONSE_SIZE = 1,      /**< Bytes of one answer's body after decompression (256 MiB); OOD_NETWORK. */
    OOD_LIMIT_PAGES = 2,              /**< Pages one download of a defining request follows (1,000,000); OOD_NETWORK. */
    OOD_LIMIT_METADATA_SIZE = 3,      /**< Bytes of a $metadata document, fetched or given (64 MiB); OOD_METADATA. */
    OOD_LIMIT_MESSAGE_LENGTH = 4,     /**< Characters of a service's error message kept in errors and the archive (1,000). */
    OOD_LIMIT_REQUEST_LENGTH = 5,     /**< Bytes of a read's URL (1 MiB); OOD_SYNTAX. */
    OOD_LIMIT_REQUEST_DEPTH = 6,      /**< Nesting of a read's URL: parentheses, paths, nested options (100); OOD_SYNTAX. */
    OOD_LIMIT_EXPRESSION_OPERATORS = 7, /**< Binary operators in one expression, a $filter say (20,000); OOD_SYNTAX. */
    OOD_LIMIT_VALUE_SIZE = 8          /**< Bytes of one value (string, number) in a downloaded page (16 MiB); OOD_NETWORK, page not kept. */
} ood_limit;

/**
 * Sets one limit (see ood_limit, with its default); 0 keeps the default.
 * @return OOD_OK; OOD_MISUSE for NULL, an unknown limit or a negative value.
 */
OOD_API ood_status ood_options_set_limit(ood_options *options, ood_limit limit, ood_int64 value);

/**
 * Whether an empty file at the path (0 bytes, or an SQLite database without tables) may become the
 * new store (`accept` non-zero). By default (0) a store is made only where no file is: an empty
 * file there makes ood_store_open_with() fail with OOD_NOTASTORE naming it, so a file is never
 * silently replaced.
 * @return OOD_OK; OOD_MISUSE for NULL `options`.
 */
OOD_API ood_status ood_options_set_accept_empty_file(ood_options *options, int accept);

/** Entities per page asked of V4 services during downloads; 0 lets the service choose. @return OOD_OK; OOD_MISUSE for NULL or a negative size. */
OOD_API ood_status ood_options_set_page_size(ood_options *options, int page_size);

/**
 * How ood_upload() sends the request queue: one request at a time (`batch_size` 0, the default),
 * or in OData `$batch` requests of at most `batch_size` queued requests. With
 * `group_by_transaction` non-zero, queued requests that share a transaction id go in one change
 * set, applied or refused together; otherwise each request is its own change set (requests on one
 * entity always share one).
 *
 * @return OOD_OK; OOD_MISUSE for NULL `options`, a negative size, or grouping without `$batch`.
 */
OOD_API ood_status ood_options_set_batch(ood_options *options, int batch_size, int group_by_transaction);

/**
 * Whether ood_upload() first compacts the request queue (non-zero, the default) or sends it as
 * queued (0). Compaction (see ood_queue_compact()) sends fewer requests with the same result on
 * the service.
 *
 * @return OOD_OK; OOD_MISUSE for NULL `options`.
 */
OOD_API ood_status ood_options_set_queue_compaction(ood_options *options, int enabled);

/** @} */

/** @name The store API: open, requests, download, upload
 *  A store opened with ood_store_open_with() serves the offline store, the service, or both
 *  (mixed mode), behind one request function. Requests issued before it is open are held and run
 *  in order once it is. Completion callbacks run exactly once, on a library thread; from inside
 *  one, the blocking functions of the same store return OOD_BUSY (the callback functions work).
 *  @{ */

/** The answer to a request. Opaque. */
typedef struct ood_result ood_result;

/**
 * Called once when an asynchronous open or request completes, on a library thread.
 *
 * @param status OOD_OK or the failure; on failure ood_error_message() on this thread says why
 *        (and ood_error_http_status() / ood_error_header() give a refusal's status and headers).
 * @param result The answer (NULL for an open, and on failure). Owned by the callback: release it
 *        with ood_result_free() (it may be kept past the callback).
 * @param payload The caller's pointer, as given.
 */
typedef void (*ood_completion)(ood_status status, ood_result *result, void *payload);

/**
 * Called after each page of a download or each answered request of an upload, on a library
 * thread. `done` counts entities (download) or requests (upload); `total` is the total when known,
 * else -1.
 *
 * @return 0 to go on, non-zero to stop the operation (it then returns OOD_ABORTED, nothing lost).
 */
typedef int (*ood_progress)(long done, long total, void *payload);

/**
 * Opens a store as `options` say and waits until it is open (its file made or reopened, its
 * $metadata read or fetched, and the first download of a new store done). The store file follows
 * the rules of ood_store_open(): made only where no file is, read-only when write-protected.
 *
 * @param options The settings (copied).
 * @param[out] out Receives the store, or NULL on failure.
 * @return OOD_OK; OOD_MISUSE for NULL arguments or options without path and service; the errors
 *         of opening (OOD_CANTOPEN, OOD_NOTASTORE, OOD_METADATA, OOD_NETWORK, OOD_HTTP, ...).
 * Ownership: the handle is the caller's; release it with ood_store_close().
 * Thread safety: any thread.
 */
OOD_API ood_status ood_store_open_with(const ood_options *options, ood_store **out);

/**
 * Starts opening a store and returns at once: the handle can take requests right away (they are
 * held until the store is open). `completion` (may be NULL) is called once opening ends, with
 * result NULL. If opening fails, the handle stays valid: every request completes with the error.
 *
 * @return OOD_OK; OOD_MISUSE for NULL `options` or `out`.
 * Ownership: the handle is the caller's; release it with ood_store_close().
 * Thread safety: any thread.
 */
OOD_API ood_status ood_store_open_async(const ood_options *options, ood_completion completion, void *payload,
                                        ood_store **out);

/**
 * Runs one OData request and waits for its answer: a read (GET), or a create, update or delete
 * (POST, PUT, PATCH, MERGE, DELETE), routed as the store's mode says. A read of a collection that
 * the service answers follows its next links and answers the whole collection (at most `$top`
 * entities, the first page's count kept), within the limits of ood_options_set_limits(); one page
 * at a time: ood_request_page().
 *
 * @param store A store from any of the open functions.
 * @param method The HTTP method.
 * @param url Relative to the service root, in the service's dialect.
 * @param body The JSON body of a create or update, or NULL.
 * @param[out] out Receives the answer, or NULL on failure.
 * @return OOD_OK; OOD_MISUSE for NULL arguments or a store whose file has no model; OOD_BUSY
 *         when called from a callback of the same store; the request's error otherwise.
 * Ownership: the result is the caller's; release it with ood_result_free().
 * Thread safety: any thread.
 */
OOD_API ood_status ood_request(ood_store *store, const char *method, const char *url, const char *body, ood_result **out);

/**
 * Reads one page of a collection and waits for it: a read the service answers (online, or mixed
 * for a set no defining request covers) gives the service's page as it came, and
 * ood_result_next_link() the link to the next page, to pass back as `url` until it is NULL.
 * ood_request() and the other request functions read the whole collection instead (they follow
 * the service's next links). Offline reads are answered whole: their next link is NULL.
 *
 * @param url Relative to the service root, or a next link from ood_result_next_link() (an
 *        absolute URL, which goes to the service and only on the service root's origin).
 * @param headers A NULL-terminated array of "Name: value" strings, or NULL for none. Copied; pass
 *        the same for every page (`Prefer: odata.maxpagesize=N`, say).
 * @param[out] out Receives the page, or NULL on failure.
 * @return As ood_request(); OOD_NETWORK also for a URL off the service's origin (nothing is sent).
 * Ownership: the result is the caller's; release it with ood_result_free().
 * Thread safety: any thread.
 */
OOD_API ood_status ood_request_page(ood_store *store, const char *url, const char *const *headers, ood_result **out);

/**
 * Starts one OData request and returns at once; `completion` is called exactly once with its
 * answer or error.
 *
 * @return OOD_OK when the request was taken (its outcome goes to `completion`); OOD_MISUSE for
 *         NULL arguments (then `completion` is not called).
 * Thread safety: any thread, also from inside a callback of the same store.
 */
OOD_API ood_status ood_request_async(ood_store *store, const char *method, const char *url, const char *body,
                                     ood_completion completion, void *payload);

/**
 * Like ood_request(), with extra request headers for the service (`If-Match`, `Prefer`, ...).
 *
 * @param headers A NULL-terminated array of "Name: value" strings, or NULL for none. Copied.
 * @return As ood_request(); OOD_MISUSE also for a header without a name, or with CR or LF in it.
 * Thread safety: any thread.
 */
OOD_API ood_status ood_request_with_headers(ood_store *store, const char *method, const char *url, const char *body,
                                            const char *const *headers, ood_result **out);

/**
 * Like ood_request_with_headers(), for a write that belongs to a transaction: the writes with the
 * same `transaction_id` are uploaded in one change set, applied or refused together, when the
 * store uploads with `$batch` grouped by transaction (ood_options_set_batch()). Offline, each
 * write still applies at once.
 *
 * @param transaction_id The caller's name for the transaction, not empty.
 * @return As ood_request(); OOD_MISUSE also for a NULL or empty `transaction_id`.
 * Thread safety: any thread.
 */
OOD_API ood_status ood_request_in_transaction(ood_store *store, const char *transaction_id, const char *method,
                                              const char *url, const char *body, const char *const *headers,
                                              ood_result **out);

/**
 * Like ood_request_in_transaction(), for an offline write whose queued request must be sent as it
 * is: the queue's compaction (ood_queue_compact()) never merges it with the entity's other
 * requests nor drops it.
 *
 * @param transaction_id The caller's name for the transaction, or NULL for none (not empty).
 * @return As ood_request(); OOD_MISUSE also for an empty `transaction_id`.
 * Thread safety: any thread.
 */
OOD_API ood_status ood_request_unmerged(ood_store *store, const char *transaction_id, const char *method,
                                        const char *url, const char *body, const char *const *headers,
                                        ood_result **out);

/** An asynchronous request started with ood_request_start(), for cancelling it. Opaque. */
typedef struct ood_call ood_call;

/**
 * Like ood_request_async(), with extra headers (as ood_request_with_headers()) and a handle that
 * can cancel the request.
 *
 * @param[out] out Receives the call handle; may be NULL when the caller will not cancel. Release
 *        it with ood_call_free(), before or after `completion` ran (the completion does not need it).
 * @return OOD_OK when the request was taken; OOD_MISUSE for NULL `store`, `method`, `url` or
 *         `completion`, or bad headers (then `completion` is not called and *out is NULL).
 * Thread safety: any thread, also from inside a callback of the same store.
 */
OOD_API ood_status ood_request_start(ood_store *store, const char *method, const char *url, const char *body,
                                     const char *const *headers, ood_completion completion, void *payload,
                                     ood_call **out);

/**
 * Asks a started request to stop. One still waiting completes with OOD_ABORTED and never runs; a
 * request to the service ends its transfer and completes with OOD_ABORTED; a local read or write
 * (milliseconds) finishes normally. Harmless after completion and when called twice.
 *
 * @return OOD_OK; OOD_MISUSE for NULL.
 * Thread safety: any thread, also from inside a callback.
 */
OOD_API ood_status ood_call_cancel(ood_call *call);

/** Releases a call handle (the request goes on); NULL does nothing. */
OOD_API void ood_call_free(ood_call *call);

/**
 * The HTTP status of an answer (200, 201, 204), or 0 for NULL. The status of a request the service
 * refused is not here (that call fails): see ood_error_http_status().
 */
OOD_API int ood_result_status(const ood_result *result);

/**
 * A header of an answer, by name: what the service sent for a request answered online, and for an
 * offline answer what a service would send: `ETag` when one entity read by key has one, `Location`
 * of a create (the entity's address under the service root, with its key as stored, provisional
 * until the upload), and `Content-Type` of every answer.
 *
 * @param name The header's name, compared without case ("ETag", "Location", "OData-Version").
 * @return Its value (a repeated header's values joined with ", "), or NULL when the answer has no
 *         such header, and for NULL arguments.
 * Ownership: borrowed from the result, valid until ood_result_free().
 * Thread safety: any thread; one result may be read from several threads at once.
 */
OOD_API const char *ood_result_header(const ood_result *result, const char *name);

/**
 * The body of an answer (OData JSON, or text for $count), NUL-terminated.
 *
 * @param result The answer.
 * @param[out] length Receives the length in bytes, without the NUL; may be NULL.
 * @return The body ("" when empty or for NULL). Ownership: borrowed from the result, valid until ood_result_free().
 */
OOD_API const char *ood_result_body(const ood_result *result, size_t *length);

/** The answer's content type ("" for NULL). Ownership: borrowed from the result. */
OOD_API const char *ood_result_content_type(const ood_result *result);

/**
 * The absolute link to the next page of an answer from ood_request_page(), for the next call.
 *
 * @return The link, or NULL on the last page, for a whole answer and for NULL.
 * Ownership: borrowed from the result, valid until ood_result_free().
 */
OOD_API const char *ood_result_next_link(const ood_result *result);

/** Releases an answer; NULL does nothing. */
OOD_API void ood_result_free(ood_result *result);

/**
 * What an answer holds, decided where the answer was made (from the request as the store
 * understood it), so a caller types it without parsing the URL again.
 */
typedef enum ood_answer_kind {
    OOD_ANSWER_OTHER = 0,       /**< The service document, $batch, an operation returning no entities, a next link's page. */
    OOD_ANSWER_COLLECTION = 1,  /**< Entities of ood_result_entity_set() (a set, a to-many navigation, a function's). */
    OOD_ANSWER_ENTITY = 2,      /**< One entity (by key, a to-one navigation, a singleton, a create's answer). */
    OOD_ANSWER_PROPERTY = 3,    /**< A property of one entity (ood_result_property()), in its JSON wrapper. */
    OOD_ANSWER_COUNT = 4,       /**< /$count of a collection, as text. */
    OOD_ANSWER_VALUE = 5,       /**< A property's raw /$value, as text. */
    OOD_ANSWER_METADATA = 6     /**< $metadata (XML). */
} ood_answer_kind;

/**
 * What the answer holds: a collection, an entity, a property, a count, a raw value. The page of a
 * next link is OOD_ANSWER_OTHER (the service's link is not parsed): the first page says what the
 * collection is.
 *
 * @return The kind; OOD_ANSWER_OTHER for NULL.
 * Thread safety: any thread; one result may be read from several threads at once.
 */
OOD_API ood_answer_kind ood_result_kind(const ood_result *result);

/**
 * The entity set the answer's entities (or the entity whose property it is) belong to: the target
 * of a navigation, a singleton's name for a singleton.
 *
 * @return The name, or NULL when the answer names none and for NULL.
 * Ownership: borrowed from the result, valid until ood_result_free().
 */
OOD_API const char *ood_result_entity_set(const ood_result *result);

/**
 * The qualified entity type of the answer's entities (a cast's type where the URL casts).
 *
 * @return The type ("Namespace.Type"), or NULL when unknown and for NULL.
 * Ownership: borrowed from the result, valid until ood_result_free().
 */
OOD_API const char *ood_result_entity_type(const ood_result *result);

/**
 * For OOD_ANSWER_PROPERTY and OOD_ANSWER_VALUE: the property's path ("Address/City" in a complex
 * property) and, with `type`, its EDM type as $metadata writes it ("Edm.String",
 * "Collection(Edm.Int32)", a complex type's qualified name).
 *
 * @param[out] type Receives the EDM type, or NULL when unknown; may be NULL.
 * @return The path, or NULL for other answers and for NULL.
 * Ownership: both borrowed from the result, valid until ood_result_free().
 */
OOD_API const char *ood_result_property(const ood_result *result, const char **type);

/**
 * An answer's body and what it holds, in one call: what ood_result_body(), ood_result_content_type(),
 * ood_result_kind(), ood_result_entity_set(), ood_result_entity_type() and ood_result_property()
 * give one by one. For bindings whose every call has a fixed cost (ctypes, JNI): one crossing per
 * answer instead of six.
 */
typedef struct ood_answer_view {
    const char *body;           /**< NUL-terminated ("" when empty). */
    size_t length;              /**< The body's length in bytes, without the NUL. */
    const char *content_type;   /**< "" when none. */
    ood_answer_kind kind;
    const char *entity_set;     /**< NULL when the answer names none. */
    const char *entity_type;    /**< NULL when unknown. */
    const char *property;       /**< NULL but for OOD_ANSWER_PROPERTY and OOD_ANSWER_VALUE. */
    const char *property_type;  /**< NULL when unknown. */
} ood_answer_view;

/**
 * Fills `view` with the answer's body, content type and shape.
 *
 * @param[out] view Receives the fields; every pointer is borrowed from the result, valid until
 *        ood_result_free().
 * @return OOD_OK; OOD_MISUSE for NULL arguments (then `view`, when given, is cleared).
 * Thread safety: any thread; one result may be read from several threads at once.
 */
OOD_API ood_status ood_result_view(const ood_result *result, ood_answer_view *view);

/**
 * A GET like ood_request() (routed as the store's mode says), its answer copied into memory the
 * caller owns when it fits, so that no result is made and freed: for bindings whose every call
 * has a fixed cost (ctypes), one crossing per read instead of four.
 *
 * The buffer receives the body and a NUL, then the content type and the shape's names, each
 * NUL-terminated; it needs the body's length plus their lengths plus six bytes.
 *
 * @param buffer Where the answer goes; may be NULL when `capacity` is 0 (every answer spills).
 * @param capacity The buffer's size in bytes.
 * @param[out] view Receives the answer. Its pointers point into `buffer` when the answer fit,
 *        else into `*spill`; cleared on an error.
 * @param[out] spill Receives NULL when the answer fit; else the answer as a result, which the
 *        caller releases with ood_result_free() (and may read with a larger buffer next time).
 * @return OOD_OK; the statuses of ood_request(); OOD_MISUSE for NULL arguments.
 * Thread safety: as ood_request(); each thread its own buffer.
 */
OOD_API ood_status ood_get_into(ood_store *store, const char *url, char *buffer, size_t capacity,
                                ood_answer_view *view, ood_result **spill);

/**
 * Where `method` on `url` would go in the store's mode, and why, without running it.
 *
 * @param[out] is_online Receives 1 for the service, 0 for the offline store.
 * @param[out] reason Receives the reason in plain words; may be NULL. Release it with ood_string_free().
 * @return OOD_OK; OOD_MISUSE for NULL arguments; OOD_BUSY from a callback of the same store.
 */
OOD_API ood_status ood_route(ood_store *store, const char *method, const char *url, int *is_online, char **reason);

/**
 * ood_route() answering JSON, like the other questions:
 * `{"destination":"offline|online","reason":"...","coveringRequests":["name", ...]}` (the defining
 * requests that cover an offline route).
 *
 * @param[out] json Receives the JSON; release it with ood_string_free().
 * @return OOD_OK; OOD_MISUSE for NULL arguments or a method other than GET, POST, PUT, PATCH, MERGE
 *         and DELETE; OOD_BUSY from a callback of the same store.
 */
OOD_API ood_status ood_route_json(ood_store *store, const char *method, const char *url, char **json);

/**
 * Downloads every defining request (each one's new content visible in one transaction) and waits.
 * `progress` (may be NULL) is called after each page with the entities so far of the defining
 * request being downloaded. Pages are kept as they arrive: after a failure or a kill, the next
 * download resumes at the page after the last one kept (docs/SYNC.md, "Resumable downloads").
 *
 * @return OOD_OK; OOD_ABORTED when `progress` asked to stop; OOD_NETWORK or OOD_HTTP when the
 *         service failed (that defining request keeps its previous data); OOD_BUSY from a callback;
 *         OOD_MISUSE for a store that knows no service root (see ood_store_open()).
 */
OOD_API ood_status ood_download(ood_store *store, ood_progress progress, void *payload);

/**
 * Like ood_download(), choosing what and how: `subset` is a NULL-terminated array of defining
 * request names (NULL for all of them), and `full` non-zero downloads each whole, ignoring its
 * delta link (what a request no longer returns leaves the store), where 0 uses delta links.
 *
 * @return As ood_download(); OOD_MISUSE also for a name the store has no defining request for.
 */
OOD_API ood_status ood_download_with(ood_store *store, const char *const *subset, int full, ood_progress progress,
                                     void *payload);

/**
 * ood_download_with() answering what it did, as JSON (the tool's `download --json`):
 * {"downloads":[{"definingRequest","entities","pages","bytes","expectedEntities","delta","fetchedPages"[,"resumedAtPage"]}]},
 * one per defining request downloaded. "pages" counts every page of the result, "fetchedPages" those
 * this call fetched; "resumedAtPage" is there only when it resumed an interrupted download of that
 * defining request (the pages before it were kept from then).
 *
 * @param[out] json Receives the JSON, or NULL on failure; release it with ood_string_free().
 * @return As ood_download_with(); OOD_MISUSE also for a NULL `json`.
 */
OOD_API ood_status ood_download_json(ood_store *store, const char *const *subset, int full, ood_progress progress,
                                     void *payload, char **json);

/** Flags of ood_download_flags(), to be or'ed. */
typedef enum {
    OOD_DOWNLOAD_FULL = 1,           /**< Download each defining request whole (as `full` above). */
    OOD_DOWNLOAD_NO_MODEL_CHECK = 2  /**< Do not check the service's $metadata first (ood_check_service): for a
                                          service that never serves it, or a caller that has just checked. */
} ood_download_flag;

/**
 * ood_download_json() with flags (ood_download_flag). Every download first checks the service's
 * $metadata against the store's model: a compatible change is migrated and the download goes on,
 * any other stops it with OOD_METADATA (ood_adopt_service_model). A check the service cannot
 * answer now (no connection, 408, 429, most 5xx) fails as a page would (OOD_NETWORK, OOD_HTTP);
 * a $metadata it does not serve (404, 403, 501, a page that is no metadata document) fails with
 * OOD_METADATA naming $metadata. OOD_DOWNLOAD_NO_MODEL_CHECK skips the check.
 *
 * @param[out] json NULL, or receives the JSON of ood_download_json(); release it with ood_string_free().
 * @return As ood_download_with(); OOD_MISUSE also for an unknown flag.
 */
OOD_API ood_status ood_download_flags(ood_store *store, const char *const *subset, int flags, ood_progress progress,
                                      void *payload, char **json);

/**
 * Uploads the request queue, first in first out, and waits. `progress` (may be NULL) is called
 * after each answered request with the requests sent so far and the queue's length.
 *
 * One upload at a time per store file: while an upload of the same file runs, from another handle
 * in this process or from another process, this returns OOD_BUSY at once, sends nothing and
 * changes nothing (a lock on the file `<store file>-upload.lock` beside the store, made when missing).
 *
 * @param[out] sent Receives how many requests the service accepted; may be NULL.
 * @param[out] archived Receives how many went to the error archive (refused); may be NULL.
 * @return OOD_OK; OOD_MISUSE for a store that knows no service root (see ood_store_open());
 *         OOD_ABORTED when `progress` asked to stop (the rest stays queued); OOD_NETWORK
 *         or OOD_HTTP when the service cannot take the queue now (it stays queued); OOD_BUSY from a callback
 *         or when another upload of the same store file runs; OOD_CANTOPEN when the upload lock file
 *         cannot be made (a read-only folder).
 */
OOD_API ood_status ood_upload(ood_store *store, ood_progress progress, void *payload, long *sent, long *archived);

/**
 * What ood_upload() would send now, in order, as JSON; nothing is sent and nothing in the store
 * changes (also while another upload runs). The batching is the options' (ood_options_set_batch).
 * {"batch","steps":[{"kind","requestIDs","note","request","changeSets"}]}: "kind" is "settle" (a
 * request in doubt is found out first: its entity is read), "archive" (requests in doubt that
 * cannot be found out go to the error archive; "request" is null), "read" (an entity is read for
 * the ETag a change needs), "csrfFetch", "send" (one queued request) or "batch" ("changeSets" lists
 * the queue ids of each change set). "request" is {"method","url","headers":[{"name","value","shown"}],"body"}
 * (the engine's and the configured headers, then User-Agent, Authorization and Cookie; not Host,
 * Content-Length, Accept-Encoding); "shown" is "exact", "masked" (a credential, shown as ***)
 * or "placeholder" (known only during the upload: the CSRF token, an ETag an earlier answer or
 * a read brings, a first-sent date; written <...>, also inside a $batch body). The answers are
 * assumed to apply each request.
 *
 * @param[out] json Receives the JSON; release it with ood_string_free().
 * @return OOD_OK; OOD_MISUSE for NULL arguments, a store opened with ood_store_open() or one
 *         without a service root; OOD_BUSY from a callback.
 */
OOD_API ood_status ood_upload_preview(ood_store *store, char **json);

/** @} */

/** @name Events and questions
 *  Details come as JSON text, so later versions can add to them without breaking callers.
 *  @{ */

/** A subscription to a store's events. Opaque. */
typedef struct ood_subscription ood_subscription;

/** What an event reports; its details_json says more (see ood_event_callback). */
typedef enum ood_event_kind {
    OOD_EVENT_STATE_CHANGED = 1,            /**< {"state":"opening|downloading|open|uploading|closed"} */
    OOD_EVENT_OPEN_FAILED = 2,              /**< {"error":{"status":N,"message":"..."}} */
    OOD_EVENT_DOWNLOAD_PROGRESS = 3,        /**< {"definingRequest","pages","entities","expectedEntities","bytes"} */
    OOD_EVENT_DOWNLOAD_FINISHED = 4,        /**< {} or {"error":{...}} */
    OOD_EVENT_FIRST_DOWNLOAD_COMPLETE = 5,  /**< {}: the first download of a new store is in */
    OOD_EVENT_UPLOAD_PROGRESS = 6,          /**< {"sent","archived","total","bytesSent","bytesReceived"}: bytes of
                                                 request and answer bodies on the wire so far */
    OOD_EVENT_UPLOAD_FINISHED = 7,          /**< {} or {"error":{...}} */
    OOD_EVENT_ENTITY_SETS_CHANGED = 8,      /**< {"entitySets":[...]}: coalesced, see the store API */
    OOD_EVENT_REQUEST_FAILED = 9,           /**< {"request":{"id","method","url","httpStatus","message","failedAt"}} */
    OOD_EVENT_UNCLEAN_SHUTDOWN_CHECKED = 10, /**< {"findings":[{"check","message"}]}: the store file was not
                                                 closed cleanly, and opening ran SQLite's quick check
                                                 (posted before anyone subscribed, it goes to the first
                                                 subscriber) */
    OOD_EVENT_SERVICE_MODEL_CHANGED = 11    /**< {"check":{...}}: a download or a check found the service's
                                                 $metadata changed (the JSON of ood_check_service) */
} ood_event_kind;

/**
 * Receives one event, on the store's event thread, in the order events happened. New kinds may be
 * added: ignore kinds you do not know.
 *
 * @param kind An ood_event_kind value.
 * @param details_json The details. Ownership: borrowed for the duration of the call.
 */
typedef void (*ood_event_callback)(int kind, const char *details_json, void *payload);

/**
 * Subscribes `callback` to the store's events from now on. "Entity sets changed" events are
 * coalesced: at most one per quarter second, and one per defining request during a download.
 *
 * @param[out] out Receives the subscription; release it with ood_subscription_free() to stop.
 * @return OOD_OK; OOD_MISUSE for NULL arguments or a store whose file has no model.
 * Thread safety: any thread, also from inside a callback.
 */
OOD_API ood_status ood_subscribe(ood_store *store, ood_event_callback callback, void *payload, ood_subscription **out);

/**
 * Ends a subscription and releases it; NULL does nothing. An event being delivered may still
 * arrive. Call it before ood_store_close() of its store, or after: both are safe.
 */
OOD_API void ood_subscription_free(ood_subscription *subscription);

/** @name Live queries
 *  A local read whose answer is delivered again whenever a committed transaction changed it.
 *  @{ */

/** A watched read. Opaque; stop and release it with ood_watch_stop(). */
typedef struct ood_watcher ood_watcher;

/**
 * Receives one answer of a watched read.
 *
 * @param status OOD_OK for an answer; else the read's error status (OOD_NOTFOUND for an entity
 *        that is no longer there: the watch goes on and delivers it again if it comes back).
 * @param body The answer's body (JSON, or text for a /$count), or the error's message. Ownership:
 *        borrowed for the duration of the call; NUL-terminated.
 * @param length The body's length in bytes, without the NUL.
 *
 * Threads: runs on the store's live-query thread, one call at a time for all the store's watches;
 * a slow callback delays the others. It may call any function of the library, ood_watch_stop() of
 * its own watch and ood_store_close() included.
 */
typedef void (*ood_watch_callback)(ood_status status, const char *body, size_t length, void *payload);

/**
 * Watches the local read `url`: `callback` gets the current answer at once, then each new answer
 * after a committed transaction changed it: a local write, a download (its entities appear
 * whole), an upload, undo, another handle or process writing the file. A commit that changed no
 * table the read depends on does not run it; an answer equal to the last one delivered is not
 * delivered; runs are at least `interval_seconds` apart (commits meanwhile join one run) and the
 * last one starts after the last commit. Waits until the store is open.
 *
 * @param interval_seconds The least time between two runs; negative for the default (0.03).
 * @param[out] out Receives the watch; stop it with ood_watch_stop().
 * @return OOD_OK; OOD_MISUSE for NULL arguments or a closed store; OOD_UNSUPPORTED for a request
 *         that is not a read the offline store answers (a write, a read routed to the service,
 *         $metadata); OOD_SYNTAX or OOD_SEMANTIC for a URL the model refuses; OOD_BUSY from a
 *         callback while the store still opens.
 * Lifetime: `payload` must stay valid until ood_watch_stop() returned, or the store closed
 * (ood_store_close() stops every watch; the handle must still be released with ood_watch_stop()).
 */
OOD_API ood_status ood_watch(ood_store *store, const char *url, double interval_seconds, ood_watch_callback callback,
                             void *payload, ood_watcher **out);

/**
 * Stops a watch and releases it; NULL does nothing. When it returns, no callback of this watch
 * runs or will run (called from the watch's own callback, it returns at once and that call is the
 * last). Safe before or after ood_store_close() of its store.
 */
OOD_API void ood_watch_stop(ood_watcher *watch);

/**
 * How often the watched read ran (its first answer included), and how many answers were
 * delivered: a run whose answer did not change delivers none.
 * @return OOD_OK; OOD_MISUSE for a NULL watch. NULL counts are skipped.
 */
OOD_API ood_status ood_watch_counts(const ood_watcher *watch, ood_int64 *runs, ood_int64 *deliveries);

/** @} */

/**
 * What the offline store would do for the read `url`, as JSON:
 * {"sql","parameters","countSQL","insideScope","definingRequests","plan"}; "plan" lists SQLite's
 * query plan, one step a line (the index a read searches, or a scan).
 *
 * @param[out] json Receives the JSON; release it with ood_string_free().
 * @return OOD_OK; OOD_MISUSE for NULL arguments or a store without a file; OOD_SYNTAX or
 *         OOD_SEMANTIC for a URL the model refuses (see ood_error_offset()); OOD_BUSY from a callback.
 */
OOD_API ood_status ood_explain(ood_store *store, const char *url, char **json);

/**
 * The store's state, mode, service, file, queue length, archive length and defining requests, as
 * JSON: {"state","mode","dialect","serviceRoot","path","queuedRequests","archivedRequests","definingRequests":[...],
 * "indexes":[{"entitySet","properties","name","origin","reason","createdAt"}],"sync":{...}} (origin "declared" or
 * "automatic"). "sync" (null for an online store) is what the store recorded of its syncs:
 * {"downloads":[{"definingRequest","entities","bytes","pages","durationMs","expectedEntities","outcome","message",
 * "finishedAt","lastSuccessAt"}],"queuedRequests","oldestQueuedAt","oldestQueuedAgeSeconds","queuedInDoubt",
 * "archivedRequests","archivedInDoubt","lastUpload":{"sent","archived","bytes","durationMs","outcome","message",
 * "finishedAt","lastSuccessAt"} or null}, one download per defining request (its last), "outcome" succeeded,
 * failed or stopped.
 *
 * @param[out] json Receives the JSON; release it with ood_string_free().
 * @return OOD_OK; OOD_MISUSE for NULL arguments; the error opening failed with; OOD_BUSY from a callback.
 */
OOD_API ood_status ood_store_status(ood_store *store, char **json);

/**
 * The store's sync log, newest first: one entry per download of a defining request, per upload and
 * per request the service refused, the newest 1000 kept (the oldest dropped first). A JSON array of
 * {"id","at","kind","definingRequest","requestID","entities","bytes","remaining","durationMs","outcome","message"};
 * "kind" is "download", "upload" or "refusal"; "remaining" is, for a download, what the service
 * announced (@odata.count, __count) beyond what it received, for an upload the requests still queued.
 *
 * @param limit The newest `limit` entries; a negative limit gives them all.
 * @param[out] json Receives the JSON; release it with ood_string_free().
 * @return OOD_OK; OOD_MISUSE for NULL arguments or a store without a file; OOD_BUSY from a callback.
 */
OOD_API ood_status ood_store_sync_log(ood_store *store, ood_int64 limit, char **json);

/**
 * Checks the store file: SQLite's integrity check (its quick check when `quick` is non-zero) and
 * the engine's own invariants (every entity with local changes has its queued or archived
 * request and every queued request its entity; what the defining requests hold, the links and the
 * saved original values point to entities that are there). Works on every handle, also one whose
 * file has no model or did not open as a store (then SQLite's check only).
 *
 * @param[out] json Receives a JSON array of {"check","message"}, "[]" for a sound store; "check" is
 *         "sqlite", "queue", "membership", "link", "original" or "stream" (a media stream's file
 *         missing, of another length or SHA-256, or a file no stream records). Release it with ood_string_free().
 * @return OOD_OK (findings are not an error); OOD_MISUSE for NULL arguments or a store without a
 *         file; OOD_BUSY from a callback.
 */
OOD_API ood_status ood_store_check(ood_store *store, int quick, char **json);

/**
 * The requests the service refused during uploads, or that need a decision, as a JSON array of
 * {"id","method","url","httpStatus","message","failedAt","kind"}; "kind" is "refused" (the
 * service refused the request), "conflict" (the entity changed on the service: 412, 409, 428) or
 * "inDoubt" (sent, answer lost, and the engine cannot find out whether the service applied it:
 * send it again with ood_error_archive_requeue() or discard it with ood_error_archive_delete()).
 *
 * @param[out] json Receives the JSON; release it with ood_string_free().
 * @return OOD_OK; OOD_MISUSE for NULL arguments or a store without a file; OOD_BUSY from a callback.
 */
OOD_API ood_status ood_error_archive(ood_store *store, char **json);

/**
 * The requests waiting for an upload, in upload order, as a JSON array of
 * {"id","method","url","body","entitySet","transactionID","createdAt","state","mergeable"} (body and the
 * others may be null); "state" is "pending", or "sent" for a request sent whose answer was not recorded
 * (the next upload finds out whether the service applied it); "mergeable" is false for a write made
 * with ood_request_unmerged().
 *
 * @param[out] json Receives the JSON; release it with ood_string_free().
 * @return OOD_OK; OOD_MISUSE for NULL arguments or a store without a file; OOD_BUSY from a callback.
 */
OOD_API ood_status ood_request_queue(ood_store *store, char **json);

/**
 * Compacts the request queue now, as each upload does first: a create followed by updates of its
 * entity becomes one create with the final values, consecutive updates merge (later values win),
 * updates followed by a delete become the delete, and a create followed by a delete disappears
 * with everything between; never across a transaction boundary, a request that names the entity,
 * a request marked with ood_request_unmerged(), one already sent, differing ETags or bodies with
 * links or nested values. Durable and whole (one SQLite transaction).
 *
 * @param[out] json NULL, or receives what was done:
 *   {"queued":N,"dropped":[ids],"replaced":[{"id","replaces":[ids]}],"cancelled":[{"entitySet","entityID"}]};
 *   release it with ood_string_free().
 * @return OOD_OK; OOD_MISUSE for a NULL store or a store without a file; OOD_BUSY while an upload
 *   of the store runs, or from a callback.
 */
OOD_API ood_status ood_queue_compact(ood_store *store, char **json);

/**
 * Discards one archived request (`id` from ood_error_archive()) or, with a negative `id`, all of
 * them, with the requests that build on it: the later requests on the same entity, archived or
 * still queued. When it was the entity's earliest request, the entity gets back the values the
 * service last sent, as after ood_undo(): an entity created offline leaves the store. An entity
 * with no archived request left is no longer marked in error.
 *
 * @param[out] deleted Receives how many requests were dropped (archived and queued); may be NULL.
 * @return OOD_OK; OOD_MISUSE for NULL `store` or a store without a file; OOD_NOTFOUND when the
 *         archive has no request `id`; OOD_BUSY from a callback.
 */
OOD_API ood_status ood_error_archive_delete(ood_store *store, ood_int64 id, long *deleted);

/**
 * Sends an archived request again: it goes back into the request queue at its place in upload
 * order (before the requests queued after it), with the later archived requests on its entity,
 * and the next upload sends them. An "inDoubt" create requeued is sent again: the caller decided
 * the service does not have it.
 *
 * @param id The request's id from ood_error_archive().
 * @param body A corrected JSON body replacing the request's, or NULL to send it unchanged. It is
 *        checked against the model as a local write's body is, and the entity takes its values
 *        (for a PUT, the properties it leaves out become null).
 * @param[out] requeued Receives how many requests went back to the queue; may be NULL.
 * @return OOD_OK; OOD_MISUSE for NULL `store`, a store without a file, or a body for a DELETE;
 *         OOD_NOTFOUND when the archive has no request `id`; OOD_SYNTAX, OOD_SEMANTIC or
 *         OOD_CONSTRAINT for a body the model refuses (nothing changes then); OOD_BUSY from a callback.
 */
OOD_API ood_status ood_error_archive_requeue(ood_store *store, ood_int64 id, const char *body, long *requeued);

/**
 * The service's data model (its `$metadata`), summarised as JSON: {"version","namespaces",
 * "entitySets":[{"name","entityType","key":[...],"properties":[{"name","type","nullable","maxLength"?}],
 * "navigationProperties":[{"name","target","collection"}]}],"singletons":[{"name","entityType"}],
 * "functionImports":[{"name","httpMethod","parameters":[{"name","type"}],"returnType"}],"actionImports":[...]}.
 *
 * @param[out] json Receives the JSON; release it with ood_string_free().
 * @return OOD_OK; OOD_MISUSE for NULL arguments; the error opening failed with; OOD_BUSY from a callback.
 */
OOD_API ood_status ood_metadata(ood_store *store, char **json);

/**
 * Undoes the local changes of one entity, addressed by its key (`TravelagencyCollection('00000001')`):
 * its requests leave the request queue and the error archive, and it gets back the values the
 * service last sent, or disappears if it was created offline. Requests on other entities that
 * build on it are not followed.
 *
 * @param[out] json Receives {"entitySet","action","droppedRequests"}, action one of "removed",
 *        "restored", "unmarked" (its synced values were not kept: the next download brings them) or
 *        "nothing"; may be NULL. Release it with ood_string_free().
 * @return OOD_OK; OOD_MISUSE for NULL `store` or `url`, or a store without a file; OOD_NOTFOUND
 *         when the store has no such entity; OOD_SYNTAX or OOD_SEMANTIC for a URL that does not
 *         address one entity; OOD_BUSY from a callback.
 */
OOD_API ood_status ood_undo(ood_store *store, const char *url, char **json);

/**
 * Reads one entity, addressed by its key (`TravelagencyCollection('00000001')`), from the service
 * again and gives the store the service's version of it: after discarding or resolving an archived
 * request, or whenever the service's current values are wanted. The row takes every value the
 * service sends and its ETag, and is no longer marked changed or in error; it keeps its links and
 * its place in the defining requests. When the service answers 404, the entity leaves the store.
 * One transaction, after the read; waits for the service (one at a time with downloads and uploads).
 *
 * An entity with queued or archived requests is refused: upload, discard or undo them first (a
 * re-download never drops a local change).
 *
 * @param[out] json Receives {"entitySet","action"}, action "updated" or "removed"; may be NULL.
 *        Release it with ood_string_free().
 * @return OOD_OK; OOD_MISUSE for NULL `store` or `url`, a store without a file or service root, or
 *         an entity with queued or archived requests; OOD_NOTFOUND when the store has no such
 *         entity; OOD_SYNTAX or OOD_SEMANTIC for a URL that does not address one entity;
 *         OOD_NETWORK or OOD_HTTP when the service did not answer with the entity or 404 (nothing
 *         changes then); OOD_BUSY from a callback.
 */
OOD_API ood_status ood_redownload(ood_store *store, const char *url, char **json);

/**
 * Asks the service whether its $metadata changed since the store's model (one conditional GET
 * with If-None-Match / If-Modified-Since where the service gave an ETag or a date, else the
 * document and a hash of it) and, if so, what differs, each difference classified against the
 * queue: "compatible" (a download migrates it in place), "needsData" (a full download under the
 * new model is needed) or "breaksPendingChanges" (queued requests the new model refuses, listed).
 * Every download runs the same check first. Changes nothing in the store.
 *
 * @param[out] json Receives {"changed","evidence":"notModified|sameHash|compared","impact",
 *        "migrated","refusedRequests":[ids],"differences":[{"kind","entitySet","type","member",
 *        "old","new","impact","queuedRequests":[ids]}]}; release it with ood_string_free().
 * @return OOD_OK; OOD_MISUSE for NULL arguments or a store without a file or service root;
 *         OOD_NETWORK or OOD_HTTP when the service did not answer (or answered 408, 429, 401, a 5xx);
 *         OOD_METADATA for a broken document or a $metadata the service does not serve (404,
 *         403, 501, a page that is no metadata document); OOD_BUSY from a callback.
 */
OOD_API ood_status ood_check_service(ood_store *store, char **json);

/**
 * Adopts the service's changed model when a download would not by itself (anything more than
 * new sets, nullable properties, navigations or wider facets). `choice`: "uploadFirst" (NULL: the
 * default; upload the queue under the store's model, then adopt), "rebuild" (adopt now, keeping
 * the queue and the error archive) or "archiveRefused" (move the queued requests the new model
 * refuses to the error archive as kind "modelChanged", naming the property or set; then adopt).
 * Adopting migrates the tables and the kept model in one transaction, then downloads in full.
 * The upload of "uploadFirst" batches as ood_upload() does (ood_options_set_batch).
 *
 * @param[out] json NULL, or receives {"check":{...},"archived":N,"adopted":B,"uploaded":{"sent",
 *        "archived"} or null,"downloads":N}; release it with ood_string_free().
 * @return OOD_OK; OOD_MISUSE for an unknown choice or a defining request the new model refuses;
 *         the errors of the upload and download.
 */
OOD_API ood_status ood_adopt_service_model(ood_store *store, const char *choice, char **json);

/** @} */

/** @name Encryption at rest (docs/ENCRYPTION.md)
 *  @{ */

/**
 * The store file's raw key: exactly 32 bytes (256 bits). A new file is made encrypted with it; an
 * existing one must have been (ood_store_open_with() then fails with OOD_KEY for a wrong key, a
 * missing one, or a key for a plain file, and the file is not changed). The engine never stores
 * the key: a lost key means a lost store. NULL `key` clears it. The bytes are copied.
 * @return OOD_OK; OOD_MISUSE for NULL `options`; OOD_KEY for a length other than 32.
 */
OOD_API ood_status ood_options_set_key(ood_options *options, const unsigned char *key, size_t length);

/**
 * The store file's key as a passphrase (UTF-8, not empty), stretched with PBKDF2-HMAC-SHA256 and
 * the store's salt (about 100 ms at every open). NULL clears it. The text is copied.
 * @return OOD_OK; OOD_MISUSE for NULL `options`; OOD_KEY for an empty passphrase.
 */
OOD_API ood_status ood_options_set_passphrase(ood_options *options, const char *passphrase);

/**
 * Changes the key of the closed store file at `path`: from the key of `from` to the key of `to`
 * (options filled with ood_options_set_key() or ood_options_set_passphrase(); NULL, or options
 * without a key, for a plain file). So it also encrypts a plain store and decrypts one. The store
 * is copied through the new key and the copy renamed over it: a process killed at any moment leaves
 * a store that opens with exactly one of the two keys. The store must not be open anywhere.
 * @return OOD_OK; OOD_MISUSE for NULL `path` or neither key; OOD_KEY when `from` does not open the
 *         store (nothing changes); OOD_BUSY when the store is open elsewhere; OOD_CANTOPEN when
 *         there is no file.
 */
OOD_API ood_status ood_store_rekey(const char *path, const ood_options *from, const ood_options *to);

/**
 * Opens the encrypted store at `path` as its file describes it, as ood_store_open() does, with the
 * key of `key` (options filled with ood_options_set_key() or ood_options_set_passphrase(); their
 * other settings are not used). A new file is made encrypted with it. NULL, or options without a
 * key: exactly ood_store_open().
 *
 * @param path UTF-8 path of the store file.
 * @param key Options holding the key, or NULL. Only read during the call.
 * @param[out] out Receives the store handle, or NULL on failure.
 * @return as ood_store_open(); OOD_KEY for a wrong key, a key for a plain file, or none for an
 *         encrypted one (the file is not changed).
 * Ownership: the handle belongs to the caller; release it with ood_store_close().
 * Thread safety: any thread.
 */
OOD_API ood_status ood_store_open_keyed(const char *path, const ood_options *key, ood_store **out);

/**
 * Changes the key of the open store `store` to the key of `to` (options filled with
 * ood_options_set_key() or ood_options_set_passphrase(); NULL, or options without a key, decrypts
 * it; a plain store is encrypted). Runs between downloads and uploads; the requests running when
 * it starts finish first and those issued meanwhile wait, then run under the new key. The queue,
 * archive, resume points, indexes and live queries (ood_watch()) go on. A process killed at any
 * moment leaves a store that opens with exactly one of the two keys. Blocks until done.
 * @return OOD_OK; OOD_MISUSE for NULL `store`, a plain store and no new key, or a store without a
 *         file; OOD_STORAGE for a read-only file; OOD_BUSY when another handle or process has the file open (nothing
 *         changes, the store goes on with its key).
 * Thread safety: any thread but the store's own (from a callback: OOD_BUSY).
 */
OOD_API ood_status ood_rekey(ood_store *store, const ood_options *to);

/**
 * Makes now the automatic indexes the local reads seen so far call for: each read shape (the
 * properties a filter tests for equality, then a range or the order) read ten times that no index
 * serves yet gets one, as after a download. The store also does this by itself, off the read path,
 * when a shape reaches ten reads in one session; this call is for a store loaded or used offline
 * that wants them at a moment of its choosing (a quiet point). Takes the write lock while it
 * builds (reads go on); runs with the downloads and uploads, one at a time.
 *
 * @param[out] json NULL, or receives the indexes made, as ood_store_status() lists them:
 *   [{"entitySet","properties":[...],"name","origin":"automatic","reason","createdAt"}] ([] when
 *   none was due); release it with ood_string_free().
 * @return OOD_OK; OOD_MISUSE for a NULL store or a store without a file; OOD_BUSY from a callback.
 */
OOD_API ood_status ood_create_automatic_indexes(ood_store *store, char **json);

/** @} */

/**
 * @name Conflict policies (docs/CONFLICTS.md)
 * What an upload does when the service refuses a change because the entity changed there since the
 * store read it (412, 409) or is gone (404 to an update or delete).
 * @{
 */

/** What a conflict resolver answers. */
typedef enum ood_conflict_answer {
    OOD_CONFLICT_ARCHIVE = 0,              /**< the request goes to the error archive, the versions beside it */
    OOD_CONFLICT_SERVER_WINS = 1,          /**< the local change is dropped (recorded), the store takes the service's entity */
    OOD_CONFLICT_CLIENT_WINS = 2,          /**< the change is sent again on the service's ETag */
    OOD_CONFLICT_MERGE_CHANGED_FIELDS = 3, /**< the changed fields sent again when the service changed none of them */
    OOD_CONFLICT_MERGED_BODY = 4           /**< send the JSON body written into `merged_body` (an update) */
} ood_conflict_answer;

/**
 * Decides one conflict. `versions_json` (borrowed for the call) is
 * {"entitySet","url","method","httpStatus","policy","original","local","served","properties":[{"name",
 * "original","local","served","changedBy"}]}: the values the change was made on, the change, the
 * service's entity (null when gone), who changed what. Answers an ood_conflict_answer; with
 * OOD_CONFLICT_MERGED_BODY it wrote a NUL-terminated JSON object of at most `capacity` bytes
 * (64 KiB) into `merged_body`. Runs on the upload's thread with no transaction open.
 */
typedef int (*ood_conflict_resolver)(const char *versions_json, char *merged_body, size_t capacity, void *payload);

/**
 * Keeps `policy` ("archive", "serverWins", "clientWins", "mergeChangedFields") in the store file as
 * its default (`entity_set` NULL) or the set's; later uploads of the store follow it.
 * @return OOD_OK; OOD_MISUSE for NULL store or policy, an unknown policy; OOD_NOTFOUND for an unknown set.
 */
OOD_API ood_status ood_store_set_conflict_policy(ood_store *store, const char *entity_set, const char *policy);

/**
 * The store's conflict policies as JSON: {"default": POLICY, "entitySets": {SET: POLICY}}.
 * @param[out] json Receives the JSON; release it with ood_string_free().
 */
OOD_API ood_status ood_store_conflict_policies(ood_store *store, char **json);

/**
 * Uploads as ood_upload() does, with `policy` for every set (NULL: the store's) and `resolver`
 * (NULL: none) deciding each conflict over it. `json` receives the outcome:
 * {"sent","archived","inDoubt","discarded","compacted"}; release it with ood_string_free().
 */
OOD_API ood_status ood_upload_resolving(ood_store *store, const char *policy, ood_conflict_resolver resolver,
                                        void *payload, char **json);

/**
 * The local changes a conflict policy discarded (server wins), oldest first, kept until cleared: a
 * JSON array of {"requestID","outcome","policy","entitySet","method","url","httpStatus","original",
 * "local","served","properties","at"}. Release `json` with ood_string_free().
 */
OOD_API ood_status ood_discarded_changes(ood_store *store, char **json);

/** Forgets the record of discarded changes; `cleared` (may be NULL) receives how many. */
OOD_API ood_status ood_discarded_changes_clear(ood_store *store, long *cleared);

/**
 * Declares `properties` (comma-separated property paths, e.g. "name,country") unique per entity in
 * `entity_set`, kept in the store file: a create there whose key the service assigns and whose
 * answer was lost is read back by them at the next upload (found with the values sent: not sent
 * again; not found: sent again) instead of going to the error archive for a decision. "" forgets
 * the set's declaration. Keys the model declares (Core.AlternateKeys) count without this.
 * @return OOD_OK; OOD_MISUSE for NULL arguments or an empty name in the list; OOD_NOTFOUND for an
 * unknown set; OOD_SEMANTIC for a property that is not one stored value of the set.
 */
OOD_API ood_status ood_store_set_alternate_key(ood_store *store, const char *entity_set, const char *properties);

/**
 * Each entity set's alternate keys, the app's before the model's, as JSON: {SET: [[PROPERTY, ...]]}.
 * @param[out] json Receives the JSON; release it with ood_string_free().
 */
OOD_API ood_status ood_store_alternate_keys(ood_store *store, char **json);

/** @} */

/** @name Media streams (docs/MEDIA.md)
 *  Media entities (`HasStream="true"`): their streams are downloaded with the defining requests that
 *  ask for them, kept as files in the folder `<store>.streams` beside the store, and read in place.
 *  @{ */

/**
 * Adds a defining request, as ood_options_add_defining_request() does, whose downloads also fetch
 * the streams of the media entities it holds: those the store lacks, those whose download was
 * interrupted (resumed with HTTP Range where the service allows it) and those whose entity's ETag
 * changed. Streams of entities that leave the store are removed.
 * @return OOD_OK; OOD_MISUSE if an argument is NULL or empty, or the name is used already.
 */
OOD_API ood_status ood_options_add_defining_request_streams(ood_options *options, const char *name, const char *url);

/**
 * How much room streams may take: the largest stream (default 1 GiB) and all of the store's
 * streams together (default 8 GiB); 0 keeps a default. A download of a stream past either is
 * stopped as soon as it passes it, whatever the service announced, and fails with OOD_HTTP, nothing
 * of that stream left on disk.
 * @return OOD_OK; OOD_MISUSE for NULL or a negative limit.
 */
OOD_API ood_status ood_options_set_stream_limits(ood_options *options, ood_int64 max_stream_size, ood_int64 max_folder_size);

/**
 * The file holding the stream of the media entity `url` addresses (`Documents(1)/$value`), as the
 * offline store has it, for the caller to open and read in place: the store never loads it into
 * memory. The file is replaced, never changed in place, so an open descriptor keeps its version.
 *
 * @param url The entity's key URL, with or without `/$value`.
 * @param[out] path Receives the file's path (free with ood_string_free()).
 * @param[out] length Receives its length in bytes (may be NULL).
 * @param[out] content_type Receives its content type (free with ood_string_free(); may be NULL).
 * @return OOD_OK; OOD_NOTFOUND when the store has no such entity or no stream for it yet;
 *         OOD_SEMANTIC when `url` is not one media entity by its key; OOD_MISUSE for NULL.
 * Thread safety: any thread.
 */
OOD_API ood_status ood_stream_file(ood_store *store, const char *url, char **path, ood_int64 *length,
                                   char **content_type);

/**
 * Creates a media entity of `entity_set` offline: its stream is the file at `file_path` (copied
 * into the store's stream folder a buffer at a time, within the stream limits), of `content_type`;
 * `properties` is its JSON body without the key (NULL: none), the service assigning the key (the
 * store gives a provisional one until the upload). The entity and its stream are readable offline
 * at once (ood_stream_file()). ood_upload() sends the stream (a media POST, never in $batch: a queue
 * holding one is uploaded a request at a time), then the properties (PATCH), then reads the entity
 * back: afterwards the local entity has the service's key, ETag and media ETag. An upload stopped
 * between them leaves the create in doubt: the next upload looks for the entity by its stream's
 * bytes and adopts it (no second POST), sends it again when the service clearly lacks it, and
 * moves it to the error archive for a decision only when it cannot tell (docs/MEDIA.md).
 *
 * @param[out] out Receives the answer: 201 with the entity as stored and its Location.
 * @return OOD_OK; OOD_SEMANTIC for a set that is not a media set; OOD_NOTFOUND for a file that
 *         cannot be read; OOD_MISUSE for NULL arguments or a stream past the limits; the errors of
 *         a create (nothing is kept then).
 * Ownership: `*out` is the caller's; release it with ood_result_free().
 */
OOD_API ood_status ood_stream_create(ood_store *store, const char *entity_set, const char *file_path,
                                     const char *content_type, const char *properties, ood_result **out);

/**
 * Replaces the stream of the media entity `url` addresses (its key URL, with or without `/$value`)
 * offline with the file at `file_path` (copied into the stream folder), of `content_type`;
 * readable offline at once (ood_stream_file()). ood_upload() sends a PUT of the entity's `$value`,
 * streamed from the file, in queue order, with the entity's ETag as If-Match; an entity
 * created offline and not uploaded yet sends the new content with its create instead.
 *
 * @return OOD_OK; OOD_NOTFOUND for an entity the store lacks or a file that cannot be read;
 *         OOD_SEMANTIC when `url` is not one media entity by its key; OOD_MISUSE for NULL
 *         arguments, a stream past the limits, or an entity whose create is in doubt (upload first).
 * Thread safety: any thread.
 */
OOD_API ood_status ood_stream_replace(ood_store *store, const char *url, const char *file_path,
                                      const char *content_type);

/** @} */

/** @name Users on a shared device (docs/SHARED-DEVICE.md)
 *  A store may be bound to a user, a name the app gives, recorded in the file: it then opens only
 *  for that user (ood_options_set_user()); another user, or none, gets OOD_OTHER_USER until the app
 *  hands it over (ood_store_hand_over()). Credentials live in each handle's options, so one user's
 *  never serve another's requests.
 *  @{ */

/**
 * The user the store is opened for. A store bound to another user, or bound to one while this is
 * unset, fails to open with OOD_OTHER_USER (the message names the holder and their pending
 * changes); a store bound to nobody is bound to this user by the open. NULL clears it. The text is
 * copied; a name is 1 to 256 bytes of UTF-8 without control characters (checked at the open).
 * @return OOD_OK; OOD_MISUSE for NULL `options`.
 */
OOD_API ood_status ood_options_set_user(ood_options *options, const char *user);

/**
 * Gives the closed store file at `path` to `new_user`, doing with the previous user's pending
 * changes what `choice` says:
 * - "upload-first": uploads them with the previous user's credentials, the HTTP settings of
 *   `previous` (ood_options_set_basic_auth() and the like), used for this one upload and never kept;
 *   fails with the queue intact when the upload does not empty it. Requests the service refuses
 *   are recorded as discarded, as below.
 * - "discard": every queued and archived request is recorded as a discarded change (policy
 *   "handOver:<previous user>", read with ood_discarded_changes() and kept until
 *   ood_discarded_changes_clear()), then dropped.
 * - "keep-apart": the previous user's store is renamed whole to `kept_path` (NULL:
 *   "<path>.<previous user>", still bound to them) and a new empty store is made at `path` from the
 *   same $metadata, service root and defining requests.
 * After "upload-first" or "discard", in one transaction, the store loses every entity, link,
 * download state, statistic and log entry of the previous user and is bound to `new_user`; its
 * next download fills it for them. A process killed before that transaction leaves the store as
 * it was; the upload part is exactly-once as any upload.
 *
 * @param previous Options with the previous user's key (ood_options_set_key()) and, for
 *        "upload-first", credentials; NULL for a plain store (and no credentials).
 * @param next Options with the new user's key, or NULL: an encrypted store needs one (OOD_MISUSE).
 * @param[out] json Receives {"previousUser","newUser","uploaded","discarded","keptAt"}, or NULL
 *        when not wanted; release it with ood_string_free().
 * @return OOD_OK; OOD_MISUSE for NULL arguments, a bad user name or choice, or a store already
 *         bound to `new_user`; OOD_KEY for a wrong key; OOD_CANTOPEN when the kept path is taken;
 *         the upload's errors (OOD_NETWORK, OOD_HTTP, OOD_BUSY: nothing of the previous user's is
 *         dropped then).
 * Thread safety: any thread; the store must be closed in every handle.
 */
OOD_API ood_status ood_store_hand_over(const char *path, const ood_options *previous, const char *new_user,
                                       const ood_options *next, const char *choice, const char *kept_path,
                                       char **json);

/**
 * The user the closed store file at `path` is bound to, read with the key of `key` (or NULL).
 * @param[out] user Receives the name, or NULL when the store belongs to nobody; release it with
 *        ood_string_free().
 * @return OOD_OK; OOD_MISUSE for NULL `path` or `user`; OOD_KEY; OOD_CANTOPEN; OOD_NOTASTORE.
 */
OOD_API ood_status ood_store_user(const char *path, const ood_options *key, char **user);

/** @} */

#ifdef __cplusplus
}
#endif

#endif /* OFFLINE_ODATA_H */
