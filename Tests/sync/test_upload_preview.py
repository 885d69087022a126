"""`offline-odata upload --dry-run` (issue 25) on the real backends: the preview sends nothing and
changes nothing, and the upload that follows sends, through the recording proxy, exactly the
requests it showed (method, URL, headers, bodies, in order), one at a time and in `$batch`."""
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import get_json, status
from test_roundtrip import run_ok, service_rows, store_rows

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests" / "backends"))
from recording_proxy import RecordingProxy  # noqa: E402

NEW = "99000001"
OTHER = "99000002"
#: Headers libcurl writes itself, and the session cookies the service sets during the upload
#: (SAP's CSRF protocol): the preview does not list them.
NOT_PREVIEWED = {"host", "content-length", "accept-encoding", "cookie"}


class Proxied:
    """A backend as the store sees it: through a recording proxy."""

    def __init__(self, proxy):
        self.service_root = proxy.root


@pytest.fixture
def proxy_for():
    started = []

    def start(server):
        proxy = RecordingProxy(server.service_root)
        started.append(proxy)
        return proxy

    yield start
    for proxy in started:
        proxy.stop()


def agency(key, name, city="Boston"):
    return json.dumps({"agencynum": key, "name": name, "city": city, "country": "US"})


def queue_rows(store):
    connection = sqlite3.connect(str(store))
    try:
        return connection.execute("SELECT * FROM ood_request_queue ORDER BY id").fetchall()
    finally:
        connection.close()


def dry_run(tool, store, *options):
    return json.loads(run_ok(tool, "upload", store, "--dry-run", "--json", *options))


def previewed_requests(preview):
    return [step["request"] for step in preview["steps"] if step["request"] is not None]


def assert_sent_as_previewed(preview, proxy, csrf):
    """The proxy saw the preview's requests, in order: method, URL, body, every header shown
    exactly, and no other but libcurl's; the CSRF token where the service hands one out (`csrf`)."""
    shown_requests = previewed_requests(preview)
    sent_requests = proxy.requests
    assert [(r["method"], r["url"]) for r in shown_requests] == [(s.method, proxy.origin + s.path) for s in sent_requests]
    for shown, sent in zip(shown_requests, sent_requests):
        assert (shown["body"] or "").encode() == sent.body, shown["url"]
        for header in shown["headers"]:
            if header["shown"] == "exact":
                assert sent.headers.get(header["name"]) == header["value"], (shown["url"], header)
            elif header["name"] == "X-CSRF-Token":
                assert header == {"name": "X-CSRF-Token", "value": "<CSRF token fetched by the upload>", "shown": "placeholder"}
                assert (sent.headers.get("X-CSRF-Token") is not None) == csrf, shown["url"]
            elif header["shown"] == "placeholder":
                # The ETag of an earlier answer on the same entity: the service's, known only then.
                assert header["name"] == "If-Match" and header["value"].startswith("<ETag of the answer to request ")
            else:
                pytest.fail(f"nothing to mask here: {header}")
        listed = {header["name"].lower() for header in shown["headers"]}
        unlisted = {name.lower() for name in sent.headers.keys()} - listed
        assert unlisted <= NOT_PREVIEWED, (shown["url"], unlisted)


def prepare_v4(tool, make_store, v4, proxy):
    store = make_store(Proxied(proxy), "v4", ("Agencies", "TravelagencyCollection?$filter=country eq 'US'"))
    run_ok(tool, "download", store)
    agencies, _ = store_rows(store, "TravelagencyCollection", ["agencynum", "name"])
    return store, sorted(agencies)[0]


def test_v4_a_dry_run_sends_nothing_and_changes_nothing(tool, make_store, v4, proxy_for):
    proxy = proxy_for(v4)
    store, changed = prepare_v4(tool, make_store, v4, proxy)
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(NEW, "Previewed"))
    run_ok(tool, "request", store, "--method", "PATCH", f"TravelagencyCollection('{changed}')", "--body",
           json.dumps({"city": "Preview City"}))
    queue_before = queue_rows(store)
    service_before = service_rows(v4, "TravelagencyCollection?$filter=country eq 'US'", ["agencynum", "name", "city"])
    proxy.requests.clear()

    for options in ((), ("--batch",)):
        preview = dry_run(tool, store, *options)
        assert [step["kind"] for step in preview["steps"]] == (
            ["csrfFetch", "send", "send"] if not options else ["csrfFetch", "batch"])
        text = run_ok(tool, "upload", store, "--dry-run", *options)
        assert "dry run: nothing was sent" in text and f"POST {proxy.root}" in text
        if options:
            # The $batch body's lines, indented under its request like its headers.
            assert "\n   --batch_ood_1\n" in text and "\n   Content-ID: 2\n" in text

    assert proxy.requests == []
    assert queue_rows(store) == queue_before
    assert service_rows(v4, "TravelagencyCollection?$filter=country eq 'US'", ["agencynum", "name", "city"]) == service_before
    assert NEW not in service_before


def test_v4_the_upload_sends_what_the_preview_showed(tool, make_store, v4, proxy_for):
    proxy = proxy_for(v4)
    store, changed = prepare_v4(tool, make_store, v4, proxy)
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(NEW, "One at a time"))
    run_ok(tool, "request", store, "--method", "PATCH", f"TravelagencyCollection('{changed}')", "--body",
           json.dumps({"city": "Preview City"}))
    run_ok(tool, "request", store, "--method", "DELETE", f"TravelagencyCollection('{changed}')")
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(OTHER, "Second"))
    # As queued (--no-compact): the compacted form is test_v4_the_compacting_upload_sends_what_the_preview_showed.
    preview = dry_run(tool, store, "--no-compact")
    assert [step["requestIDs"] for step in preview["steps"] if step["kind"] == "send"] == [[1], [2], [3], [4]]
    proxy.requests.clear()

    assert "4 sent, 0 moved" in run_ok(tool, "upload", store, "--no-compact")
    assert_sent_as_previewed(preview, proxy, csrf=False)


def test_v4_the_compacting_upload_sends_what_the_preview_showed(tool, make_store, v4, proxy_for):
    proxy = proxy_for(v4)
    store, changed = prepare_v4(tool, make_store, v4, proxy)
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(NEW, "Compacted"))
    run_ok(tool, "request", store, "--method", "PATCH", f"TravelagencyCollection('{NEW}')", "--body",
           json.dumps({"city": "Merged City"}))
    run_ok(tool, "request", store, "--method", "PATCH", f"TravelagencyCollection('{changed}')", "--body",
           json.dumps({"city": "Dropped City"}))
    run_ok(tool, "request", store, "--method", "DELETE", f"TravelagencyCollection('{changed}')")
    queue_before = sqlite3.connect(store).execute("SELECT id, body FROM ood_request_queue ORDER BY id").fetchall()
    preview = dry_run(tool, store)
    # The create took its PATCH's values; the PATCH before the DELETE is dropped.
    sends = [step for step in preview["steps"] if step["kind"] == "send"]
    assert [step["requestIDs"] for step in sends] == [[1], [4]]
    assert json.loads(sends[0]["request"]["body"])["city"] == "Merged City"
    assert sqlite3.connect(store).execute("SELECT id, body FROM ood_request_queue ORDER BY id").fetchall() == queue_before
    proxy.requests.clear()

    assert "2 sent, 0 moved" in run_ok(tool, "upload", store)
    assert_sent_as_previewed(preview, proxy, csrf=False)
    on_service = service_rows(v4, "TravelagencyCollection?$filter=country eq 'US'", ["agencynum", "city"])
    assert on_service[NEW] == ("Merged City",) and changed not in on_service


def test_v4_the_batch_upload_sends_the_previewed_bodies_and_change_sets(tool, make_store, v4, proxy_for):
    proxy = proxy_for(v4)
    store, changed = prepare_v4(tool, make_store, v4, proxy)
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(NEW, "In a batch"))
    run_ok(tool, "request", store, "--method", "PATCH", f"TravelagencyCollection('{NEW}')", "--body",
           json.dumps({"city": "Cambridge"}))
    run_ok(tool, "request", store, "--method", "PATCH", f"TravelagencyCollection('{changed}')", "--body",
           json.dumps({"city": "Batch City"}))
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(OTHER, "Next batch"))
    # As queued (--no-compact), so that the PATCH of the created entity stays its own request.
    preview = dry_run(tool, store, "--batch", "--batch-size", "3", "--no-compact")
    batches = [step for step in preview["steps"] if step["kind"] == "batch"]
    assert [step["changeSets"] for step in batches] == [[[1, 2], [3]], [[4]]]
    # The PATCH of the entity created in the same change set refers to it by Content-ID.
    assert "PATCH $1 HTTP/1.1\r\n" in batches[0]["request"]["body"]
    proxy.requests.clear()

    assert "4 sent, 0 moved" in run_ok(tool, "upload", store, "--batch", "--batch-size", "3", "--no-compact")
    assert_sent_as_previewed(preview, proxy, csrf=False)
    on_service = service_rows(v4, "TravelagencyCollection?$filter=country eq 'US'", ["agencynum", "city"])
    assert on_service[NEW] == ("Cambridge",) and on_service[changed] == ("Batch City",)


def prepare_v2(tool, make_store, v2, proxy):
    store = make_store(Proxied(proxy), "v2", ("Agencies", "TravelagencyCollection?$filter=country eq 'US'"))
    run_ok(tool, "download", store)
    agencies, _ = store_rows(store, "TravelagencyCollection", ["agencynum", "name"])
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(NEW, "V2 preview"))
    changed = sorted(agencies)[0]
    run_ok(tool, "request", store, "--method", "MERGE", f"TravelagencyCollection('{changed}')", "--body",
           json.dumps({"city": "V2 City"}))
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(OTHER, "V2 second"))
    return store, changed


def test_v2_with_csrf_the_upload_sends_what_the_preview_showed(tool, make_store, v2, proxy_for):
    proxy = proxy_for(v2)
    store, changed = prepare_v2(tool, make_store, v2, proxy)
    preview = dry_run(tool, store)
    assert [step["kind"] for step in preview["steps"]] == ["csrfFetch", "send", "send", "send"]
    assert previewed_requests(preview)[0]["headers"][0] == {"name": "X-CSRF-Token", "value": "Fetch", "shown": "exact"}
    proxy.requests.clear()

    assert "3 sent, 0 moved" in run_ok(tool, "upload", store)
    assert_sent_as_previewed(preview, proxy, csrf=True)


def test_v2_with_csrf_the_batch_upload_sends_what_the_preview_showed(tool, make_store, v2, proxy_for):
    proxy = proxy_for(v2)
    store, changed = prepare_v2(tool, make_store, v2, proxy)
    preview = dry_run(tool, store, "--batch", "--group-by-transaction")
    batch = [step for step in preview["steps"] if step["kind"] == "batch"]
    assert len(batch) == 1 and batch[0]["changeSets"] == [[1], [2], [3]]
    proxy.requests.clear()

    assert "3 sent, 0 moved" in run_ok(tool, "upload", store, "--batch", "--group-by-transaction")
    assert_sent_as_previewed(preview, proxy, csrf=True)
    on_service = service_rows(v2, "TravelagencyCollection?$filter=country eq 'US'", ["agencynum", "city"], v2=True)
    assert on_service[changed] == ("V2 City",) and NEW in on_service and OTHER in on_service


def test_credentials_are_masked_in_the_preview(make_store, v4, proxy_for):
    tool_path = os.environ["OOD_TOOL"]
    proxy = proxy_for(v4)

    def tool(*arguments):
        environment = dict(os.environ, OFFLINE_ODATA_PASSWORD="pw-secret-1")
        return subprocess.run([tool_path, *map(str, arguments)], capture_output=True, text=True, timeout=120, env=environment)

    store = make_store(Proxied(proxy), "v4")
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(NEW, "Masked"))
    credentials = ("--user", "alice", "--header", "X-API-Key: key-secret-2", "--cookie", "sid=cookie-secret-3",
                   "--header", "X-Tenant: north")
    for options in ((), ("--batch",)):
        output = run_ok(tool, "upload", store, "--dry-run", "--json", *options, *credentials)
        for secret in ("pw-secret-1", "key-secret-2", "cookie-secret-3"):
            assert secret not in output
        text = run_ok(tool, "upload", store, "--dry-run", *options, *credentials)
        assert "pw-secret-1" not in text and "key-secret-2" not in text and "cookie-secret-3" not in text
        change = previewed_requests(json.loads(output))[-1]
        headers = {header["name"]: (header["value"], header["shown"]) for header in change["headers"]}
        assert headers["Authorization"] == ("Basic ***", "masked")
        assert headers["X-API-Key"] == ("***", "masked")
        assert headers["Cookie"] == ("sid=***", "masked")
        assert headers["X-Tenant"] == ("north", "exact")
    assert proxy.requests == []


def test_a_request_in_doubt_is_shown_settled_first(tool, make_store, v4, proxy_for):
    proxy = proxy_for(v4)
    store, changed = prepare_v4(tool, make_store, v4, proxy)
    run_ok(tool, "request", store, "--method", "PATCH", f"TravelagencyCollection('{changed}')", "--body",
           json.dumps({"city": "Doubtful"}))
    connection = sqlite3.connect(str(store))
    with connection:
        connection.execute("UPDATE ood_request_queue SET state = 'sent'")
    connection.close()
    queue_before = queue_rows(store)
    proxy.requests.clear()
    preview = dry_run(tool, store)
    assert [step["kind"] for step in preview["steps"]] == ["settle", "csrfFetch", "send"]
    settle = preview["steps"][0]
    assert settle["requestIDs"] == [1] and settle["request"]["method"] == "GET"
    assert settle["request"]["url"] == proxy.root + f"TravelagencyCollection('{changed}')"
    assert proxy.requests == [] and queue_rows(store) == queue_before

    run_ok(tool, "upload", store)
    assert_sent_as_previewed(preview, proxy, csrf=False)


def test_an_empty_queue_previews_nothing(tool, make_store, v4):
    store = make_store(v4, "v4")
    assert dry_run(tool, store) == {"batch": False, "steps": []}
    assert "the queue is empty" in run_ok(tool, "upload", store, "--dry-run")
