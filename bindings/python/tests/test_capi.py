"""The ctypes declarations against the header: every function, its arity, its prototype comment."""
import inspect
import re

import pytest

import offline_odata
from offline_odata import _capi, _callbacks
from offline_odata.events import EventKind
from offline_odata.results import AnswerKind
from offline_odata.options import Mode
from conftest import header_enum, header_functions


def test_every_header_function_is_declared_and_nothing_else():
    assert _capi.DECLARED == sorted(header_functions())
    # 42 at first, then batch uploads, request headers, cancellable requests, the model, undo, requeue,
    # re-download, ood_options_set_limit, ood_options_set_service_root_saved, reads one page at a time,
    # accepting an empty file, the store check, declared indexes, the route as JSON, downloads of a subset, whole or delta,
    # and an answer's headers with the HTTP status and headers of a refusal (ood_result_header, ood_error_http_status,
    # ood_error_header), the upload preview (ood_upload_preview), the sync log (ood_store_sync_log) and the
    # queue's compaction (ood_queue_compact, ood_request_unmerged, ood_options_set_queue_compaction), and what an
    # answer holds (ood_result_kind, ood_result_entity_set, ood_result_entity_type, ood_result_property).
    # Encryption at rest: ood_options_set_key, ood_options_set_passphrase, ood_store_rekey,
    # ood_store_open_keyed; the service's model: ood_check_service, ood_adopt_service_model,
    # ood_download_flags. An answer's body and shape in one call: ood_result_view. Live queries:
    # ood_watch, ood_watch_stop, ood_watch_counts. A read in one call into the caller's buffer: ood_get_into.
    # Rekey of an open store: ood_rekey.
    # Conflict policies: ood_store_set_conflict_policy, ood_store_conflict_policies, ood_upload_resolving,
    # ood_discarded_changes, ood_discarded_changes_clear. Alternate keys: ood_store_set_alternate_key,
    # ood_store_alternate_keys.
    # Automatic indexes on demand: ood_create_automatic_indexes.
    # Media streams: ood_options_add_defining_request_streams, ood_options_set_stream_limits, ood_stream_file,
    # ood_stream_create, ood_stream_replace.
    assert len(_capi.DECLARED) == 104
    assert {"ood_options_set_batch", "ood_request_with_headers", "ood_request_start", "ood_call_cancel",
            "ood_call_free", "ood_metadata", "ood_undo", "ood_redownload", "ood_request_page",
            "ood_result_next_link", "ood_options_set_accept_empty_file", "ood_store_check",
            "ood_options_add_index", "ood_route_json", "ood_download_with", "ood_result_header",
            "ood_error_http_status", "ood_error_header", "ood_result_kind", "ood_result_entity_set",
            "ood_result_entity_type", "ood_result_property"} <= set(_capi.DECLARED)


def test_header_array_is_null_terminated():
    array = _capi.header_array([b"A: 1", b"B: 2"])
    assert [array[0], array[1], array[2]] == [b"A: 1", b"B: 2", None]
    assert _capi.header_array([])[0] is None


@pytest.mark.parametrize("name", sorted(header_functions()))
def test_each_declaration_has_the_headers_arity_and_its_prototype_beside_it(name):
    function = getattr(_capi, name)
    assert len(function.argtypes) == header_functions()[name]
    source = inspect.getsource(_capi)
    assert re.search(r"^# .*\b%s\(" % name, source, re.M), f"no C prototype comment for {name}"


def test_status_functions_raise_by_themselves():
    with pytest.raises(offline_odata.MisuseError) as caught:
        _capi.ood_options_set_path(None, b"x")
    assert caught.value.status == 2


def test_the_mode_and_event_enums_match_the_header():
    modes = header_enum("ood_mode")
    assert {f"OOD_MODE_{mode.name}": mode.value for mode in Mode} == modes
    kinds = header_enum("ood_event_kind")
    assert {f"OOD_EVENT_{kind.name}": kind.value for kind in EventKind} == kinds
    answers = header_enum("ood_answer_kind")
    assert {f"OOD_ANSWER_{kind.name}": kind.value for kind in AnswerKind} == answers


def test_the_limit_options_match_the_header():
    from offline_odata.options import _LIMITS
    limits = header_enum("ood_limit")
    names = {"max_response_size": "RESPONSE_SIZE", "max_pages": "PAGES", "max_metadata_size": "METADATA_SIZE",
             "max_message_length": "MESSAGE_LENGTH", "max_request_length": "REQUEST_LENGTH",
             "max_request_depth": "REQUEST_DEPTH", "max_expression_operators": "EXPRESSION_OPERATORS",
             "max_value_size": "VALUE_SIZE"}
    assert {f"OOD_LIMIT_{names[option]}": value for option, value in _LIMITS} == limits


def test_take_string_releases_an_owned_string_and_maps_null_to_empty(store_path):
    from ctypes import byref, c_void_p
    with offline_odata.Store.open_file(store_path) as store:
        out = c_void_p()
        _capi.ood_store_path(store._handle, byref(out))
        assert _capi.take_string(out) == store_path
    assert _capi.take_string(c_void_p()) == ""


def test_encode_refuses_what_c_cannot_take():
    assert _capi.encode("é", "x") == "é".encode("utf-8")
    assert _capi.encode(None, "x") is None
    with pytest.raises(TypeError, match="url must be a str"):
        _capi.encode(b"bytes", "url")
    with pytest.raises(ValueError, match="NUL"):
        _capi.encode("a\x00b", "url")


def test_the_callback_registry_forgets_what_it_handed_out():
    marker = object()
    key = _callbacks.register(marker)
    assert key > 0
    assert _callbacks.unregister(key) is marker
    assert _callbacks.unregister(key) is None
    assert not _callbacks.in_callback()
