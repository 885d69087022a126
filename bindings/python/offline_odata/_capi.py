"""Every function of offline_odata.h, declared for ctypes with its C prototype beside it.

Conventions:

* Handles (``ood_store *``, ``ood_options *``, ...) are ``c_void_p``.
* Owned strings (``char **out``) are declared as ``POINTER(c_void_p)`` so the pointer is kept and
  released with the library's own :func:`ood_string_free` (see :func:`take_string`); ``c_char_p``
  would copy the text and leak the original.
* Functions returning ``ood_status`` carry an ``errcheck`` that raises the mapped exception, so no
  call site can forget to check, and the per-thread message is read on the calling thread right
  after the call.
* ``ctypes.CDLL`` releases the GIL around each call, and the callback types are ``CFUNCTYPE``, so
  a callback arriving on a library thread takes the GIL again before running Python code.
"""
import os
import re
import sys
from ctypes import CFUNCTYPE, POINTER, Structure, c_char_p, c_double, c_int, c_long, c_longlong, c_size_t, c_void_p
from types import FrameType
from typing import Any, Callable, Optional, Sequence, overload

from ._loader import load_library
from .errors import error_for_status

lib = load_library()

#: ``MAJOR * 1000000 + MINOR * 1000 + PATCH`` of the header this binding was written against.
HEADER_VERSION_NUMBER = 1000


def errcheck_status(result: int, function: Any, arguments: Any) -> int:
    """ctypes ``errcheck`` of status-returning functions: raises unless the status is OOD_OK.

    It runs on the calling thread right after the call, so the per-thread message and offset
    still describe this call.
    """
    if result == 0:
        return result
    raw = ood_error_message()
    message = raw.decode("utf-8", "replace") if raw else "unknown error"
    offset = ood_error_offset()
    raise error_for_status(result, python_message(message), offset if offset >= 0 else None)


_C_FUNCTION_PREFIX = re.compile(r"ood_[a-z_]+: ")
_PACKAGE = os.path.dirname(os.path.abspath(__file__))
# Advice in the library's messages that names C functions, in the binding's words.
_C_HINTS = {
    "(ood_store_open_with, ood_options_set_service_root)": "(Store.open(path, service_root=...))",
}


def python_message(message: str) -> str:
    """The library's message with the C function it names first (``ood_options_set_mode: ...``)
    replaced by the binding's method the caller called (``Store.open: ...``).

    Only failures pay for this: the caller's frame is looked for when a message has such a prefix.
    """
    for c_hint, python_hint in _C_HINTS.items():
        message = message.replace(c_hint, python_hint)
    match = _C_FUNCTION_PREFIX.match(message)
    if match is None:
        return message
    name = None
    frame: Optional[FrameType] = sys._getframe(1)
    while frame is not None:
        if os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == _PACKAGE:
            code = frame.f_code
            name = getattr(code, "co_qualname", code.co_name)
        elif name is not None and not frame.f_code.co_filename.endswith("contextlib.py"):
            break
        frame = frame.f_back
    if name is not None and name.endswith(".__init__"):
        name = name[: -len(".__init__")]  # Store(...) is what the caller wrote
    if name is None or name.startswith("_") or "<" in name:
        return message[match.end():]
    return f"{name}: {message[match.end():]}"


def _declare(name: str, restype: Any, argtypes: Sequence[Any], status: bool = False) -> Callable[..., Any]:
    """Sets a library function's signature; ``status=True`` attaches the status check."""
    function = getattr(lib, name)
    function.restype = restype
    function.argtypes = list(argtypes)
    if status:
        function.errcheck = errcheck_status
    declared: Callable[..., Any] = function
    return declared


def _check_abi() -> None:
    """Refuses a library of another major version, or older than this binding's header."""
    function = lib.ood_version_number
    function.restype, function.argtypes = c_int, []
    found = function()
    if found // 1_000_000 != HEADER_VERSION_NUMBER // 1_000_000 or found < HEADER_VERSION_NUMBER:
        raise ImportError(f"libofflineodata.so is version number {found}; this binding needs "
                          f"{HEADER_VERSION_NUMBER // 1_000_000}.x at least {HEADER_VERSION_NUMBER}")


_check_abi()

# ---- callback types -------------------------------------------------------------------------

# typedef void (*ood_completion)(ood_status status, ood_result *result, void *payload);
ood_completion = CFUNCTYPE(None, c_int, c_void_p, c_void_p)
# typedef int (*ood_progress)(long done, long total, void *payload);
ood_progress = CFUNCTYPE(c_int, c_long, c_long, c_void_p)
# typedef void (*ood_event_callback)(int kind, const char *details_json, void *payload);
ood_event_callback = CFUNCTYPE(None, c_int, c_char_p, c_void_p)
# void (*ood_watch_callback)(ood_status status, const char *body, size_t length, void *payload);
ood_watch_callback = CFUNCTYPE(None, c_int, c_void_p, c_size_t, c_void_p)

# ---- version --------------------------------------------------------------------------------

# const char *ood_version(void);
ood_version = _declare("ood_version", c_char_p, [])
# int ood_version_number(void);
ood_version_number = _declare("ood_version_number", c_int, [])

# ---- status and errors ----------------------------------------------------------------------

# const char *ood_error_message(void);
ood_error_message = _declare("ood_error_message", c_char_p, [])
# long ood_error_offset(void);
ood_error_offset = _declare("ood_error_offset", c_long, [])
# int ood_error_http_status(void);  (0 unless the service refused the last failing call)
ood_error_http_status = _declare("ood_error_http_status", c_int, [])
# const char *ood_error_header(const char *name);  (NULL when the refusal has no such header)
ood_error_header = _declare("ood_error_header", c_char_p, [c_char_p])
# const char *ood_status_name(int status);
ood_status_name = _declare("ood_status_name", c_char_p, [c_int])
# void ood_string_free(char *s);
ood_string_free = _declare("ood_string_free", None, [c_void_p])

# ---- store files ----------------------------------------------------------------------------

# ood_status ood_store_open(const char *path, ood_store **out);
ood_store_open = _declare("ood_store_open", c_int, [c_char_p, POINTER(c_void_p)], status=True)
# ood_status ood_store_close(ood_store *store);
ood_store_close = _declare("ood_store_close", c_int, [c_void_p])
# ood_status ood_store_format_version(ood_store *store, int *out);
ood_store_format_version = _declare("ood_store_format_version", c_int, [c_void_p, POINTER(c_int)], status=True)
# ood_status ood_store_path(ood_store *store, char **out);
ood_store_path = _declare("ood_store_path", c_int, [c_void_p, POINTER(c_void_p)], status=True)

# ---- options --------------------------------------------------------------------------------

# ood_status ood_options_new(ood_options **out);
ood_options_new = _declare("ood_options_new", c_int, [POINTER(c_void_p)], status=True)
# void ood_options_free(ood_options *options);
ood_options_free = _declare("ood_options_free", None, [c_void_p])
# ood_status ood_options_set_path(ood_options *options, const char *path);
ood_options_set_path = _declare("ood_options_set_path", c_int, [c_void_p, c_char_p], status=True)
# ood_status ood_options_set_service_root(ood_options *options, const char *service_root);
ood_options_set_service_root = _declare("ood_options_set_service_root", c_int, [c_void_p, c_char_p], status=True)
# ood_status ood_options_set_metadata(ood_options *options, const char *metadata);
ood_options_set_metadata = _declare("ood_options_set_metadata", c_int, [c_void_p, c_char_p], status=True)
# ood_status ood_options_add_defining_request(ood_options *options, const char *name, const char *url);
ood_options_add_defining_request = _declare("ood_options_add_defining_request", c_int,
                                            [c_void_p, c_char_p, c_char_p], status=True)
# ood_status ood_options_add_index(ood_options *options, const char *entity_set, const char *properties);
ood_options_add_index = _declare("ood_options_add_index", c_int, [c_void_p, c_char_p, c_char_p], status=True)
# ood_status ood_options_set_mode(ood_options *options, int mode);
ood_options_set_mode = _declare("ood_options_set_mode", c_int, [c_void_p, c_int], status=True)
# ood_status ood_options_set_basic_auth(ood_options *options, const char *user, const char *password);
ood_options_set_basic_auth = _declare("ood_options_set_basic_auth", c_int, [c_void_p, c_char_p, c_char_p],
                                      status=True)
# ood_status ood_options_set_bearer_token(ood_options *options, const char *token);
ood_options_set_bearer_token = _declare("ood_options_set_bearer_token", c_int, [c_void_p, c_char_p], status=True)
# ood_status ood_options_add_header(ood_options *options, const char *name, const char *value);
ood_options_add_header = _declare("ood_options_add_header", c_int, [c_void_p, c_char_p, c_char_p], status=True)
# ood_status ood_options_set_timeouts(ood_options *options, double connect_seconds, double request_seconds);
ood_options_set_timeouts = _declare("ood_options_set_timeouts", c_int, [c_void_p, c_double, c_double], status=True)
# ood_status ood_options_set_tls(ood_options *options, int verify, const char *ca_file, const char *ca_path);
ood_options_set_tls = _declare("ood_options_set_tls", c_int, [c_void_p, c_int, c_char_p, c_char_p], status=True)
# ood_status ood_options_add_cookie(ood_options *options, const char *name, const char *value);
ood_options_add_cookie = _declare("ood_options_add_cookie", c_int, [c_void_p, c_char_p, c_char_p], status=True)
# ood_status ood_options_set_limits(ood_options *options, ood_int64 max_response_size, ood_int64 max_pages);
ood_options_set_limits = _declare("ood_options_set_limits", c_int, [c_void_p, c_longlong, c_longlong], status=True)
# ood_status ood_options_set_limit(ood_options *options, ood_limit limit, ood_int64 value);
ood_options_set_limit = _declare("ood_options_set_limit", c_int, [c_void_p, c_int, c_longlong], status=True)
# ood_status ood_options_set_service_root_saved(ood_options *options, int saved);
ood_options_set_service_root_saved = _declare("ood_options_set_service_root_saved", c_int, [c_void_p, c_int], status=True)
# ood_status ood_options_set_page_size(ood_options *options, int page_size);
ood_options_set_page_size = _declare("ood_options_set_page_size", c_int, [c_void_p, c_int], status=True)
# ood_status ood_options_set_accept_empty_file(ood_options *options, int accept);
ood_options_set_accept_empty_file = _declare("ood_options_set_accept_empty_file", c_int, [c_void_p, c_int], status=True)
# ood_status ood_options_set_key(ood_options *options, const unsigned char *key, size_t length);
ood_options_set_key = _declare("ood_options_set_key", c_int, [c_void_p, c_char_p, c_size_t], status=True)
# ood_status ood_options_set_passphrase(ood_options *options, const char *passphrase);
ood_options_set_passphrase = _declare("ood_options_set_passphrase", c_int, [c_void_p, c_char_p], status=True)
# ood_status ood_store_rekey(const char *path, const ood_options *from, const ood_options *to);
ood_store_rekey = _declare("ood_store_rekey", c_int, [c_char_p, c_void_p, c_void_p], status=True)
# ood_status ood_store_open_keyed(const char *path, const ood_options *key, ood_store **out);
ood_store_open_keyed = _declare("ood_store_open_keyed", c_int, [c_char_p, c_void_p, POINTER(c_void_p)], status=True)
# ood_status ood_rekey(ood_store *store, const ood_options *to);
ood_rekey = _declare("ood_rekey", c_int, [c_void_p, c_void_p], status=True)
# ood_status ood_options_set_queue_compaction(ood_options *options, int enabled);
ood_options_set_queue_compaction = _declare("ood_options_set_queue_compaction", c_int, [c_void_p, c_int], status=True)
# ood_status ood_options_set_batch(ood_options *options, int batch_size, int group_by_transaction);
ood_options_set_batch = _declare("ood_options_set_batch", c_int, [c_void_p, c_int, c_int], status=True)

# ---- the store API --------------------------------------------------------------------------

# ood_status ood_store_open_with(const ood_options *options, ood_store **out);
ood_store_open_with = _declare("ood_store_open_with", c_int, [c_void_p, POINTER(c_void_p)], status=True)
# ood_status ood_store_open_async(const ood_options *options, ood_completion completion, void *payload,
#                                 ood_store **out);
ood_store_open_async = _declare("ood_store_open_async", c_int,
                                [c_void_p, ood_completion, c_void_p, POINTER(c_void_p)], status=True)
# ood_status ood_request(ood_store *store, const char *method, const char *url, const char *body,
#                        ood_result **out);
ood_request = _declare("ood_request", c_int, [c_void_p, c_char_p, c_char_p, c_char_p, POINTER(c_void_p)],
                       status=True)
# ood_status ood_request_async(ood_store *store, const char *method, const char *url, const char *body,
#                              ood_completion completion, void *payload);
ood_request_async = _declare("ood_request_async", c_int,
                             [c_void_p, c_char_p, c_char_p, c_char_p, ood_completion, c_void_p], status=True)
# ood_status ood_request_with_headers(ood_store *store, const char *method, const char *url, const char *body,
#                                     const char *const *headers, ood_result **out);
# (headers: a NULL-terminated array, see header_array.)
ood_request_with_headers = _declare("ood_request_with_headers", c_int,
                                    [c_void_p, c_char_p, c_char_p, c_char_p, POINTER(c_char_p), POINTER(c_void_p)],
                                    status=True)
# ood_status ood_request_in_transaction(ood_store *store, const char *transaction_id, const char *method,
#                                       const char *url, const char *body, const char *const *headers,
#                                       ood_result **out);
ood_request_in_transaction = _declare("ood_request_in_transaction", c_int,
                                      [c_void_p, c_char_p, c_char_p, c_char_p, c_char_p, POINTER(c_char_p),
                                       POINTER(c_void_p)],
                                      status=True)
# ood_status ood_request_unmerged(ood_store *store, const char *transaction_id, const char *method,
#                                 const char *url, const char *body, const char *const *headers, ood_result **out);
ood_request_unmerged = _declare("ood_request_unmerged", c_int,
                                [c_void_p, c_char_p, c_char_p, c_char_p, c_char_p, POINTER(c_char_p), POINTER(c_void_p)],
                                status=True)
# ood_status ood_request_page(ood_store *store, const char *url, const char *const *headers, ood_result **out);
ood_request_page = _declare("ood_request_page", c_int, [c_void_p, c_char_p, POINTER(c_char_p), POINTER(c_void_p)],
                            status=True)
# ood_status ood_request_start(ood_store *store, const char *method, const char *url, const char *body,
#                              const char *const *headers, ood_completion completion, void *payload,
#                              ood_call **out);
ood_request_start = _declare("ood_request_start", c_int,
                             [c_void_p, c_char_p, c_char_p, c_char_p, POINTER(c_char_p), ood_completion, c_void_p,
                              POINTER(c_void_p)], status=True)
# ood_status ood_call_cancel(ood_call *call);
ood_call_cancel = _declare("ood_call_cancel", c_int, [c_void_p], status=True)
# void ood_call_free(ood_call *call);
ood_call_free = _declare("ood_call_free", None, [c_void_p])
# int ood_result_status(const ood_result *result);
ood_result_status = _declare("ood_result_status", c_int, [c_void_p])
# const char *ood_result_body(const ood_result *result, size_t *length);
# (c_void_p, not c_char_p: the body is read with string_at and its length, without a strlen.)
ood_result_body = _declare("ood_result_body", c_void_p, [c_void_p, POINTER(c_size_t)])
# const char *ood_result_content_type(const ood_result *result);
ood_result_content_type = _declare("ood_result_content_type", c_char_p, [c_void_p])
# const char *ood_result_next_link(const ood_result *result);  (NULL when the answer is whole)
ood_result_next_link = _declare("ood_result_next_link", c_char_p, [c_void_p])
# const char *ood_result_header(const ood_result *result, const char *name);  (NULL when absent)
ood_result_header = _declare("ood_result_header", c_char_p, [c_void_p, c_char_p])
# void ood_result_free(ood_result *result);
ood_result_free = _declare("ood_result_free", None, [c_void_p])
# ood_answer_kind ood_result_kind(const ood_result *result);  (see results.AnswerKind)
ood_result_kind = _declare("ood_result_kind", c_int, [c_void_p])
# const char *ood_result_entity_set(const ood_result *result);  (NULL when the answer names none)
ood_result_entity_set = _declare("ood_result_entity_set", c_char_p, [c_void_p])
# const char *ood_result_entity_type(const ood_result *result);  (NULL when unknown)
ood_result_entity_type = _declare("ood_result_entity_type", c_char_p, [c_void_p])
# const char *ood_result_property(const ood_result *result, const char **type);  (NULL but for a property or $value)
ood_result_property = _declare("ood_result_property", c_char_p, [c_void_p, POINTER(c_char_p)])


class AnswerView(Structure):
    """``ood_answer_view``: an answer's body, content type and shape, filled by one call."""
    _fields_ = [("body", c_void_p), ("length", c_size_t), ("content_type", c_char_p), ("kind", c_int),
                ("entity_set", c_char_p), ("entity_type", c_char_p), ("property", c_char_p),
                ("property_type", c_char_p)]


# ood_status ood_result_view(const ood_result *result, ood_answer_view *view);
ood_result_view = _declare("ood_result_view", c_int, [c_void_p, POINTER(AnswerView)], status=True)
# ood_status ood_get_into(ood_store *store, const char *url, char *buffer, size_t capacity, ood_answer_view *view,
#                         ood_result **spill);
# Without the status check attached: the read path (Store.get) checks the status itself, one Python
# call less per read; buffer, view and spill go as addresses (see _reader.py).
ood_get_into = _declare("ood_get_into", c_int, [c_void_p, c_char_p, c_void_p, c_size_t, c_void_p, c_void_p])
# ood_status ood_route(ood_store *store, const char *method, const char *url, int *is_online, char **reason);
ood_route = _declare("ood_route", c_int, [c_void_p, c_char_p, c_char_p, POINTER(c_int), POINTER(c_void_p)],
                     status=True)
# ood_status ood_route_json(ood_store *store, const char *method, const char *url, char **json);
ood_route_json = _declare("ood_route_json", c_int, [c_void_p, c_char_p, c_char_p, POINTER(c_void_p)], status=True)
# ood_status ood_download(ood_store *store, ood_progress progress, void *payload);
ood_download = _declare("ood_download", c_int, [c_void_p, ood_progress, c_void_p], status=True)
# ood_status ood_download_with(ood_store *store, const char *const *subset, int full, ood_progress progress,
#                              void *payload);  (subset: a NULL-terminated array, see string_array; NULL for all)
ood_download_with = _declare("ood_download_with", c_int, [c_void_p, POINTER(c_char_p), c_int, ood_progress, c_void_p],
                             status=True)
# ood_status ood_download_json(ood_store *store, const char *const *subset, int full, ood_progress progress,
#                              void *payload, char **json);
ood_download_json = _declare("ood_download_json", c_int,
                             [c_void_p, POINTER(c_char_p), c_int, ood_progress, c_void_p, POINTER(c_void_p)], status=True)
# ood_status ood_download_flags(ood_store *store, const char *const *subset, int flags, ood_progress progress,
#                               void *payload, char **json);
ood_download_flags = _declare("ood_download_flags", c_int,
                              [c_void_p, POINTER(c_char_p), c_int, ood_progress, c_void_p, POINTER(c_void_p)], status=True)
#: ood_download_flag
OOD_DOWNLOAD_FULL = 1
OOD_DOWNLOAD_NO_MODEL_CHECK = 2
# ood_status ood_upload(ood_store *store, ood_progress progress, void *payload, long *sent, long *archived);
ood_upload = _declare("ood_upload", c_int, [c_void_p, ood_progress, c_void_p, POINTER(c_long), POINTER(c_long)],
                      status=True)

# ---- events and questions -------------------------------------------------------------------

# ood_status ood_subscribe(ood_store *store, ood_event_callback callback, void *payload, ood_subscription **out);
ood_subscribe = _declare("ood_subscribe", c_int, [c_void_p, ood_event_callback, c_void_p, POINTER(c_void_p)],
                         status=True)
# void ood_subscription_free(ood_subscription *subscription);
ood_subscription_free = _declare("ood_subscription_free", None, [c_void_p])
# ood_status ood_watch(ood_store *store, const char *url, double interval_seconds, ood_watch_callback callback,
#                      void *payload, ood_watch **out);
ood_watch = _declare("ood_watch", c_int, [c_void_p, c_char_p, c_double, ood_watch_callback, c_void_p, POINTER(c_void_p)],
                     status=True)
# void ood_watch_stop(ood_watch *watch);
ood_watch_stop = _declare("ood_watch_stop", None, [c_void_p])
# ood_status ood_watch_counts(const ood_watch *watch, ood_int64 *runs, ood_int64 *deliveries);
ood_watch_counts = _declare("ood_watch_counts", c_int, [c_void_p, POINTER(c_longlong), POINTER(c_longlong)], status=True)
# ood_status ood_explain(ood_store *store, const char *url, char **json);
ood_explain = _declare("ood_explain", c_int, [c_void_p, c_char_p, POINTER(c_void_p)], status=True)
# ood_status ood_store_check(ood_store *store, int quick, char **json);
ood_store_check = _declare("ood_store_check", c_int, [c_void_p, c_int, POINTER(c_void_p)], status=True)
# ood_status ood_store_status(ood_store *store, char **json);
ood_store_status = _declare("ood_store_status", c_int, [c_void_p, POINTER(c_void_p)], status=True)
# ood_status ood_store_sync_log(ood_store *store, ood_int64 limit, char **json);
ood_store_sync_log = _declare("ood_store_sync_log", c_int, [c_void_p, c_longlong, POINTER(c_void_p)], status=True)
# ood_status ood_error_archive(ood_store *store, char **json);
ood_error_archive = _declare("ood_error_archive", c_int, [c_void_p, POINTER(c_void_p)], status=True)
# ood_status ood_upload_preview(ood_store *store, char **json);
ood_upload_preview = _declare("ood_upload_preview", c_int, [c_void_p, POINTER(c_void_p)], status=True)
# ood_status ood_request_queue(ood_store *store, char **json);
ood_request_queue = _declare("ood_request_queue", c_int, [c_void_p, POINTER(c_void_p)], status=True)
# ood_status ood_queue_compact(ood_store *store, char **json);
ood_queue_compact = _declare("ood_queue_compact", c_int, [c_void_p, POINTER(c_void_p)], status=True)
# ood_status ood_error_archive_delete(ood_store *store, ood_int64 id, long *deleted);
ood_error_archive_delete = _declare("ood_error_archive_delete", c_int, [c_void_p, c_longlong, POINTER(c_long)],
                                    status=True)
# ood_status ood_error_archive_requeue(ood_store *store, ood_int64 id, const char *body, long *requeued);
ood_error_archive_requeue = _declare("ood_error_archive_requeue", c_int,
                                     [c_void_p, c_longlong, c_char_p, POINTER(c_long)], status=True)
# ood_status ood_metadata(ood_store *store, char **json);
ood_metadata = _declare("ood_metadata", c_int, [c_void_p, POINTER(c_void_p)], status=True)
# ood_status ood_create_automatic_indexes(ood_store *store, char **json);
ood_create_automatic_indexes = _declare("ood_create_automatic_indexes", c_int, [c_void_p, POINTER(c_void_p)], status=True)
# ood_status ood_undo(ood_store *store, const char *url, char **json);
ood_undo = _declare("ood_undo", c_int, [c_void_p, c_char_p, POINTER(c_void_p)], status=True)
# ood_status ood_redownload(ood_store *store, const char *url, char **json);
ood_redownload = _declare("ood_redownload", c_int, [c_void_p, c_char_p, POINTER(c_void_p)], status=True)
# ood_status ood_check_service(ood_store *store, char **json);
ood_check_service = _declare("ood_check_service", c_int, [c_void_p, POINTER(c_void_p)], status=True)
# ood_status ood_adopt_service_model(ood_store *store, const char *choice, char **json);
ood_adopt_service_model = _declare("ood_adopt_service_model", c_int, [c_void_p, c_char_p, POINTER(c_void_p)], status=True)
# Media streams (docs/MEDIA.md).
# ood_status ood_options_add_defining_request_streams(ood_options *options, const char *name, const char *url);
ood_options_add_defining_request_streams = _declare("ood_options_add_defining_request_streams", c_int,
                                                    [c_void_p, c_char_p, c_char_p], status=True)
# ood_status ood_options_set_stream_limits(ood_options *options, ood_int64 max_stream_size, ood_int64 max_folder_size);
ood_options_set_stream_limits = _declare("ood_options_set_stream_limits", c_int,
                                         [c_void_p, c_longlong, c_longlong], status=True)
# ood_status ood_stream_file(ood_store *store, const char *url, char **path, ood_int64 *length, char **content_type);
ood_stream_file = _declare("ood_stream_file", c_int,
                           [c_void_p, c_char_p, POINTER(c_void_p), POINTER(c_longlong), POINTER(c_void_p)], status=True)
# ood_status ood_stream_create(ood_store *store, const char *entity_set, const char *file_path,
#                              const char *content_type, const char *properties, ood_result **out);
ood_stream_create = _declare("ood_stream_create", c_int,
                             [c_void_p, c_char_p, c_char_p, c_char_p, c_char_p, POINTER(c_void_p)], status=True)
# ood_status ood_stream_replace(ood_store *store, const char *url, const char *file_path, const char *content_type);
ood_stream_replace = _declare("ood_stream_replace", c_int, [c_void_p, c_char_p, c_char_p, c_char_p], status=True)

# ---- conflict policies (docs/CONFLICTS.md) --------------------------------------------------

# int (*ood_conflict_resolver)(const char *versions_json, char *merged_body, size_t capacity, void *payload);
ood_conflict_resolver = CFUNCTYPE(c_int, c_char_p, c_void_p, c_size_t, c_void_p)
# ood_status ood_store_set_conflict_policy(ood_store *store, const char *entity_set, const char *policy);
ood_store_set_conflict_policy = _declare("ood_store_set_conflict_policy", c_int, [c_void_p, c_char_p, c_char_p], status=True)
# ood_status ood_store_conflict_policies(ood_store *store, char **json);
ood_store_conflict_policies = _declare("ood_store_conflict_policies", c_int, [c_void_p, POINTER(c_void_p)], status=True)
# ood_status ood_upload_resolving(ood_store *store, const char *policy, ood_conflict_resolver resolver,
#                                 void *payload, char **json);
ood_upload_resolving = _declare("ood_upload_resolving", c_int,
                                [c_void_p, c_char_p, ood_conflict_resolver, c_void_p, POINTER(c_void_p)], status=True)
# ood_status ood_discarded_changes(ood_store *store, char **json);
ood_discarded_changes = _declare("ood_discarded_changes", c_int, [c_void_p, POINTER(c_void_p)], status=True)
# ood_status ood_discarded_changes_clear(ood_store *store, long *cleared);
ood_discarded_changes_clear = _declare("ood_discarded_changes_clear", c_int, [c_void_p, POINTER(c_long)], status=True)
# ood_status ood_store_set_alternate_key(ood_store *store, const char *entity_set, const char *properties);
ood_store_set_alternate_key = _declare("ood_store_set_alternate_key", c_int, [c_void_p, c_char_p, c_char_p], status=True)
# ood_status ood_store_alternate_keys(ood_store *store, char **json);
ood_store_alternate_keys = _declare("ood_store_alternate_keys", c_int, [c_void_p, POINTER(c_void_p)], status=True)

# ood_status ood_options_set_user(ood_options *options, const char *user);
ood_options_set_user = _declare("ood_options_set_user", c_int, [c_void_p, c_char_p], status=True)
# ood_status ood_store_hand_over(const char *path, const ood_options *previous, const char *new_user,
#                                const ood_options *next, const char *choice, const char *kept_path, char **json);
ood_store_hand_over = _declare("ood_store_hand_over", c_int,
                               [c_char_p, c_void_p, c_char_p, c_void_p, c_char_p, c_char_p, POINTER(c_void_p)], status=True)
# ood_status ood_store_user(const char *path, const ood_options *key, char **user);
ood_store_user = _declare("ood_store_user", c_int, [c_char_p, c_void_p, POINTER(c_void_p)], status=True)

#: The names of every function declared here (a test compares them with the header).
DECLARED = sorted(name for name in dir() if name.startswith("ood_") and callable(globals()[name])
                  and name not in ("ood_completion", "ood_progress", "ood_event_callback", "ood_watch_callback",
                                   "ood_conflict_resolver"))


def take_string(pointer: c_void_p) -> str:
    """Decodes an owned ``char *`` and releases it with the library's free; NULL gives ""."""
    if not pointer.value:
        return ""
    try:
        return c_char_p(pointer.value).value.decode("utf-8")  # type: ignore[union-attr]
    finally:
        ood_string_free(pointer)


def string_array(items: Sequence[bytes]) -> Any:
    """A NULL-terminated ``const char *const *`` array of encoded strings (header lines, names).

    The array holds references to the ``bytes`` objects, so they live as long as it does.
    """
    return (c_char_p * (len(items) + 1))(*items, None)


#: The headers' form of :func:`string_array` (``"Name: value"`` lines).
header_array = string_array


@overload
def encode(text: str, what: str) -> bytes: ...
@overload
def encode(text: None, what: str) -> None: ...
@overload
def encode(text: Optional[str], what: str) -> Optional[bytes]: ...
def encode(text: Optional[str], what: str) -> Optional[bytes]:
    """UTF-8 for a ``const char *`` argument; None stays NULL; anything but str is a TypeError."""
    if text is None:
        return None
    if not isinstance(text, str):
        raise TypeError(f"{what} must be a str, not {type(text).__name__}")
    if "\x00" in text:
        raise ValueError(f"{what} must not contain NUL characters")
    return text.encode("utf-8")
