"""Options as keyword arguments: Python type checks, the library's refusals, and their effect on the wire."""
import socket
import time

import pytest

from offline_odata import (EventKind, MetadataError, MisuseError, Mode, NetworkError, NotFoundError, Options,
                           QuerySyntaxError, Store)
from conftest import US_AGENCIES, metadata  # the proxy fixture is in conftest.py


def test_headers_cookies_and_basic_auth_reach_the_service(proxy):
    with Store(service_root=proxy.root, mode=Mode.ONLINE, headers={"X-Client": "py-test"},
               cookies=[("sap-usercontext", "sap-client=100")],
               basic_auth=("alice", "s3cret"), connect_timeout=5, request_timeout=30) as store:
        assert store.get("CarrierCollection?$top=1")
    last = proxy.requests[-1].headers
    assert last["X-Client"] == "py-test"
    assert "sap-usercontext=sap-client=100" in last["Cookie"]
    assert last["Authorization"] == "Basic YWxpY2U6czNjcmV0"  # base64 of alice:s3cret


def test_a_bearer_token_reaches_the_service(proxy):
    with Store(service_root=proxy.root, mode=Mode.ONLINE, bearer_token="tok-123", verify_tls=False) as store:
        store.get("CarrierCollection?$top=1")
    assert proxy.requests[-1].headers["Authorization"] == "Bearer tok-123"


def test_page_size_asks_the_service_for_smaller_pages(v4, tmp_path):
    # The first download of a new store runs while it opens: its progress events count the pages.
    store = Store.open(tmp_path / "paged.store", service_root=v4.service_root, page_size=3, wait=False,
                       defining_requests={"Agencies": US_AGENCIES})
    with store, store.subscribe() as events:
        pages = []
        event = events.get(timeout=60)
        while event.kind != EventKind.FIRST_DOWNLOAD_COMPLETE:
            if event.kind == EventKind.DOWNLOAD_PROGRESS:
                pages.append(event.details["pages"])
            event = events.get(timeout=60)
        count = store.get("TravelagencyCollection/$count")
    assert count > 3
    assert max(pages) == -(-count // 3)


def test_the_request_timeout_ends_a_request_the_service_never_answers():
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)  # connections complete in the backlog; nothing ever answers
    try:
        started = time.monotonic()
        with pytest.raises(NetworkError):
            Store(service_root=f"http://127.0.0.1:{silent.getsockname()[1]}/", mode=Mode.ONLINE, connect_timeout=1,
                  request_timeout=1)
        assert time.monotonic() - started < 20
    finally:
        silent.close()


def test_a_ca_file_that_does_not_exist_fails_the_tls_handshake_not_python(tmp_path):
    # No TLS server here: the options are accepted, and the unreachable service is a network error.
    with pytest.raises(NetworkError):
        Store(service_root="https://127.0.0.1:1/", mode=Mode.ONLINE, ca_file=tmp_path / "none.pem", ca_path=tmp_path,
              connect_timeout=1)


@pytest.mark.parametrize("options, message", [
    ({"service_root": "not a url"}, "absolute URL"),
    ({"defining_requests": [("A", "TravelagencyCollection"), ("A", "CarrierCollection")]}, ""),
    ({"defining_requests": {"": "TravelagencyCollection"}}, ""),
    ({"mode": 7}, ""),
    ({"page_size": -1}, ""),
    ({"connect_timeout": 0}, ""),
    ({"request_timeout": -1}, ""),
    ({"headers": {"": "v"}}, ""),
    ({"cookies": {"": "v"}}, ""),
    # Issue 20: no header or cookie can carry a header of its own, or a second cookie.
    ({"headers": {"X-A": "1\r\nX-Evil: 1"}}, "the value of the header 'X-A' contains CR, LF or NUL"),
    ({"headers": [("X-A\n", "1")]}, "Store.open: the header name"),
    ({"cookies": {"c": "1; admin=1"}}, "the value of the cookie 'c' contains CR, LF, NUL or ';'"),
    ({"cookies": {"c=d": "1"}}, "the cookie name 'c=d'"),
    ({"max_response_size": -1}, "negative"),
    ({"max_pages": -1}, "negative"),
    ({"max_metadata_size": -1}, "negative"),
    ({"max_expression_operators": 20_001}, "can be lowered, not raised above 20000"),
    ({"max_request_depth": 101}, "can be lowered, not raised above 100"),
])
def test_the_library_refuses_bad_values_with_misuse(options, message, store_path):
    with pytest.raises(MisuseError) as caught:
        Store.open(store_path, **options)
    assert message in caught.value.message


def test_neither_path_nor_service_is_misuse():
    with pytest.raises(MisuseError, match="neither a store file"):
        Store.open()


@pytest.mark.parametrize("options", [
    {"mode": "online"}, {"mode": True}, {"page_size": "5"}, {"basic_auth": "user:pw"},
    {"headers": [("X-A",)]}, {"service_root": b"http://x/"}, {"no_such_option": 1}, {"path": 42},
    {"defining_requests": {"A": None}}, {"max_response_size": "1"}, {"max_pages": 1.5},
    {"max_message_length": "10"}, {"max_request_length": True},
])
def test_options_of_the_wrong_type_are_type_errors(options, store_path):
    arguments = {"path": store_path, **options} if "path" not in options else options
    path = arguments.pop("path")
    with pytest.raises(TypeError):
        Store.open(path, **arguments)


def test_options_is_a_plain_dataclass():
    options = Options(path="x.store", mode=Mode.ONLINE, page_size=10)
    assert options.mode is Mode.ONLINE and options.page_size == 10
    assert "x.store" in repr(options)


def test_a_nul_in_a_header_is_a_value_error(store_path):
    with pytest.raises(ValueError):
        Store.open(store_path, headers={"X-A": "1\x002"})


def test_an_answer_above_the_maximum_response_size_is_a_network_error(proxy):
    # The online store fetches $metadata when it opens, or at the first request: either fails.
    with pytest.raises(NetworkError, match="larger than 50 bytes"):
        with Store(service_root=proxy.root, mode=Mode.ONLINE, max_response_size=50) as store:
            store.get("CarrierCollection")
    with Store(service_root=proxy.root, mode=Mode.ONLINE, max_response_size=10_000_000, max_pages=10) as store:
        assert store.get("CarrierCollection?$top=1")


def test_a_metadata_document_above_max_metadata_size_is_refused_before_it_is_read(v4, store_path):
    # Fetched from the service (the online store reads it when it opens or at the first request) ...
    with pytest.raises(MetadataError, match="more than the limit of 1000 bytes"):
        with Store(service_root=v4.service_root, mode=Mode.ONLINE, max_metadata_size=1000) as store:
            store.get("CarrierCollection?$top=1")
    # ... or given by the application.
    with pytest.raises(MetadataError, match="the \\$metadata document given has [0-9]+ bytes, more than the limit of 1000"):
        Store.open(store_path, metadata=metadata("v4"), mode=Mode.OFFLINE, max_metadata_size=1000)
    with Store.open(store_path, metadata=metadata("v4"), mode=Mode.OFFLINE, max_metadata_size=10_000_000) as store:
        assert store.get("CarrierCollection/$count") == 0


def test_max_message_length_holds_the_service_message(v4):
    with Store(service_root=v4.service_root, mode=Mode.ONLINE) as store:
        with pytest.raises(NotFoundError) as whole:
            store.get("TravelagencyCollection('nonexistent')")
    with Store(service_root=v4.service_root, mode=Mode.ONLINE, max_message_length=3) as store:
        with pytest.raises(NotFoundError) as cut:
            store.get("TravelagencyCollection('nonexistent')")
    said = whole.value.message.split("answered 404: ", 1)[1]
    assert len(said) > 3
    assert cut.value.message.endswith("answered 404: " + said[:3] + "...")


def test_max_request_length_and_operators_bound_a_read(store_path):
    long_filter = "CarrierCollection?$filter=" + " or ".join(f"carrid eq 'C{i}'" for i in range(300))
    with Store.open(store_path, metadata=metadata("v4"), mode=Mode.OFFLINE) as store:
        assert store.get(long_filter) == []
    with Store.open(store_path, mode=Mode.OFFLINE, max_request_length=1000) as store:
        with pytest.raises(QuerySyntaxError, match="1000"):
            store.get(long_filter)
    with Store.open(store_path, mode=Mode.OFFLINE, max_expression_operators=100) as store:
        with pytest.raises(QuerySyntaxError, match="100"):
            store.get(long_filter)
        assert store.get("CarrierCollection?$filter=carrid eq 'AA' or carrid eq 'LH'") == []


def stored_service_root(path) -> str:
    import sqlite3
    connection = sqlite3.connect(path)
    try:
        return connection.execute("SELECT value FROM ood_store_info WHERE key = 'service_root'").fetchone()[0]
    finally:
        connection.close()


def test_a_different_service_root_is_used_for_the_session_unless_saved(v4, store_path):
    with Store.open(store_path, service_root=v4.service_root, defining_requests={"Agencies": US_AGENCIES}) as store:
        assert store.get("TravelagencyCollection/$count") > 0
    assert stored_service_root(store_path) == v4.service_root
    alias = v4.service_root.replace("127.0.0.1", "localhost")
    with Store.open(store_path, service_root=alias) as store:
        assert store.get("CarrierCollection?$top=1")  # online, through the alias
    assert stored_service_root(store_path) == v4.service_root
    with Store.open(store_path, service_root=alias, save_service_root=True):
        pass
    assert stored_service_root(store_path) == alias
    with pytest.raises(TypeError):
        Store.open(store_path, service_root=alias, save_service_root=1)


def test_a_value_above_max_value_size_fails_the_download_naming_it(v4, store_path):
    # The first download runs while the store opens; a value longer than 16 bytes (the page's
    # context URL, an agency's name) stops it before its page is kept, and the store holds no agency.
    with pytest.raises(NetworkError, match=r"the string of '[@.A-Za-z/]+' is [0-9]+ bytes, more than the maximum value size of 16 bytes"):
        Store.open(store_path, service_root=v4.service_root, defining_requests={"Agencies": US_AGENCIES},
                   max_value_size=16)
    import sqlite3
    connection = sqlite3.connect(store_path)
    try:
        assert connection.execute('SELECT count(*) FROM "es/TravelagencyCollection"').fetchone() == (0,)
    finally:
        connection.close()
    with Store.open(store_path, service_root=v4.service_root, defining_requests={"Agencies": US_AGENCIES}) as store:
        assert store.get("TravelagencyCollection/$count") > 0
