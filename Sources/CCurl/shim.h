#ifndef OOD_CCURL_SHIM_H
#define OOD_CCURL_SHIM_H
#include <curl/curl.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

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
/* Guards against libcurl sending a request a second time by itself. When a reused connection turns
   out closed before any answer came, libcurl opens a new one and sends the request again, though the
   first may have been applied. The pre-request callback (7.80) runs each time a request is about to
   leave on a connection, the socket-option callback each time a new socket is made: a second
   pre-request call, or a new socket after the first, in one transfer is that re-send, refused there. */
typedef int (*ccurl_prereq_callback)(void *clientp, char *primary_ip, char *local_ip, int primary_port, int local_port);
typedef int (*ccurl_sockopt_callback)(void *clientp, curl_socket_t fd, curlsocktype purpose);
static inline int ccurl_can_refuse_resend(void) {
#if LIBCURL_VERSION_NUM >= 0x075000
    /* Built against 7.80 or later, and running on it too. */
    curl_version_info_data *running = curl_version_info(CURLVERSION_NOW);
    return running != NULL && running->version_num >= 0x075000;
#else
    return 0;
#endif
}
static inline CURLcode ccurl_setopt_resend_guard(CURL *h, ccurl_prereq_callback prereq, ccurl_sockopt_callback sockopt, void *data) {
#if LIBCURL_VERSION_NUM >= 0x075000
    CURLcode rc = curl_easy_setopt(h, CURLOPT_PREREQFUNCTION, prereq);
    if (rc != CURLE_OK) return rc;
    rc = curl_easy_setopt(h, CURLOPT_PREREQDATA, data);
    if (rc != CURLE_OK) return rc;
    rc = curl_easy_setopt(h, CURLOPT_SOCKOPTFUNCTION, sockopt);
    if (rc != CURLE_OK) return rc;
    return curl_easy_setopt(h, CURLOPT_SOCKOPTDATA, data);
#else
    (void)h; (void)prereq; (void)sockopt; (void)data;
    return CURLE_NOT_BUILT_IN;
#endif
}

/* A connection idle for longer than `seconds` is not reused by this transfer (CURLOPT_MAXAGE_CONN, 7.65). */
static inline CURLcode ccurl_setopt_maximum_idle(CURL *h, long seconds) {
#if LIBCURL_VERSION_NUM >= 0x074100
    return curl_easy_setopt(h, CURLOPT_MAXAGE_CONN, seconds);
#else
    (void)h; (void)seconds;
    return CURLE_NOT_BUILT_IN;
#endif
}
/* The connection's socket after a transfer (CURLINFO_ACTIVESOCKET, 7.45): -1 when none is kept. */
static inline curl_socket_t ccurl_last_socket(CURL *h) {
    curl_socket_t fd = CURL_SOCKET_BAD;
    if (curl_easy_getinfo(h, CURLINFO_ACTIVESOCKET, &fd) != CURLE_OK) return CURL_SOCKET_BAD;
    return fd;
}

/* Whether `fd` is the TCP connection from local port `local_port` to `peer_ip` port `peer_port`
   (what the pre-request callback reports): a connection's four numbers name one socket only, so a
   descriptor closed and given to something else since never matches. */
static inline int ccurl_socket_is_connection(curl_socket_t fd, int local_port, const char *peer_ip, int peer_port) {
    struct sockaddr_storage local, peer;
    socklen_t local_length = sizeof local, peer_length = sizeof peer;
    char text[INET6_ADDRSTRLEN];
    if (fd < 0 || peer_ip == NULL) return 0;
    if (getsockname(fd, (struct sockaddr *)&local, &local_length) != 0) return 0;
    if (getpeername(fd, (struct sockaddr *)&peer, &peer_length) != 0) return 0;
    if (local.ss_family != peer.ss_family) return 0;
    if (peer.ss_family == AF_INET) {
        const struct sockaddr_in *l = (const struct sockaddr_in *)&local, *p = (const struct sockaddr_in *)&peer;
        if (ntohs(l->sin_port) != local_port || ntohs(p->sin_port) != peer_port) return 0;
        if (inet_ntop(AF_INET, &p->sin_addr, text, sizeof text) == NULL) return 0;
    } else if (peer.ss_family == AF_INET6) {
        const struct sockaddr_in6 *l = (const struct sockaddr_in6 *)&local, *p = (const struct sockaddr_in6 *)&peer;
        if (ntohs(l->sin6_port) != local_port || ntohs(p->sin6_port) != peer_port) return 0;
        if (inet_ntop(AF_INET6, &p->sin6_addr, text, sizeof text) == NULL) return 0;
    } else {
        return 0;
    }
    return strcmp(text, peer_ip) == 0;
}

/* Acknowledges what has arrived on `fd` at once, and what arrives next without the delayed-ACK
   wait (TCP_QUICKACK, Linux). The kernel goes back to delaying ACKs when this end sends again soon
   after receiving (its "ping-pong" guess), so it is set anew for each answer. */
static inline void ccurl_acknowledge_quickly(curl_socket_t fd) {
#ifdef TCP_QUICKACK
    int one = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one);
#else
    (void)fd;
#endif
}
#endif
