#ifndef OOD_CCURL_SHIM_H
#define OOD_CCURL_SHIM_H
#include <curl/curl.h>

/* curl_easy_setopt and curl_easy_getinfo are variadic, which Swift does not import:
   one typed wrapper per argument type. */
typedef size_t (*ccurl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
static inline CURLcode ccurl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_setopt_callback(CURL *h, CURLoption o, ccurl_data_callback cb) { return curl_easy_setopt(h, o, cb); }
static inline CURLcode ccurl_setopt_offset(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode ccurl_getinfo_long(CURL *h, CURLINFO i, long *out) { return curl_easy_getinfo(h, i, out); }
static inline CURLcode ccurl_getinfo_offset(CURL *h, CURLINFO i, curl_off_t *out) { return curl_easy_getinfo(h, i, out); }

/* A share handle that holds cookies, so they outlive the cookie engine's settings. */
static inline CURLSHcode ccurl_share_cookies(CURLSH *s) { return curl_share_setopt(s, CURLSHOPT_SHARE, CURL_LOCK_DATA_COOKIE); }

/* Empties the handle's list of cookie files (CURLOPT_COOKIEFILE NULL): libcurl 7.88 loses that list
   at curl_easy_reset (curl issue 10694, fixed in 8.0). With the cookies in a share, they are kept. */
static inline CURLcode ccurl_clear_cookie_files(CURL *h) { return curl_easy_setopt(h, CURLOPT_COOKIEFILE, (char *)NULL); }

/* The transfer-progress callback, through which a running transfer is cancelled. */
typedef int (*ccurl_progress_callback)(void *clientp, curl_off_t dltotal, curl_off_t dlnow,
                                       curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode ccurl_setopt_progress(CURL *h, ccurl_progress_callback cb) {
    return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb);
}

/* Only http and https, for the first request and for any redirect: a service root or a link of
   another scheme (file:, ftp:, ...) fails instead of reading local files or other services.
   CURLOPT_PROTOCOLS_STR came in 7.85; older libcurl has the bitmask form. */
static inline CURLcode ccurl_restrict_to_http(CURL *h) {
#if LIBCURL_VERSION_NUM >= 0x075500
    CURLcode rc = curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
    CURLcode rc = curl_easy_setopt(h, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
}
#endif
