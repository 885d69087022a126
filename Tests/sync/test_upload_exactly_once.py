"""Uploads exactly once (issue 19): no change lost, none applied twice, every outcome honest.

Each test runs the tool against the real V4 backend (odatapy) through the fault proxy
(`fault_proxy.py`), which answers for the service (`respond`), replaces its answer (`rewrite`),
or lets the service apply a request and then drops the connection (`drop`). What the service
holds is read from the backend directly, never through the proxy.
"""
from __future__ import annotations

import json
import time
import urllib.request

import pytest

import backends
from conftest import get_json, status
from test_faults import NEW_AGENCY, agency, change_on_service, offline, store_row

AGENCIES = ("Agencies", "TravelagencyCollection")
HTML = "<html><body><form action='/login'>Please log in</form></body></html>"


def agencies_named(server, name: str) -> list[dict]:
    """The agencies of that name on the service (a create applied twice shows as two)."""
    url = server.service_root + "TravelagencyCollection?$filter=" + urllib.request.quote(f"name eq '{name}'")
    return get_json(url)["value"]


def upload(tool, store, *options):
    """`upload --json --no-compact`: (exit code, the JSON document, stderr). The queue goes as it was
    queued, so each case keeps the requests it builds (a create and its update stay two requests);
    the document's "compacted" and "discarded" are checked to be 0 and left out, and so are its byte counts (checked
    to be counts; bindings/python/tests/test_upload_bytes.py checks them against the wire)."""
    result = tool("upload", store, "--json", "--no-compact", *options)
    document = json.loads(result.stdout.strip().splitlines()[-1]) if result.stdout.strip() else None
    if isinstance(document, dict) and "compacted" in document:
        assert document.pop("compacted") == 0
        # No conflict policy drops anything here (the default archives): checked and left out.
        assert document.pop("discarded", 0) == 0
        for key in ("bytesSent", "bytesReceived"):
            assert isinstance(document.pop(key), int)
    return result.returncode, document, result.stderr


def queue_of(tool, store) -> list[tuple[str, str]]:
    return [(request["method"], request["state"]) for request in status(tool, store)["queue"]]


def synced_store(tool, make_store, server):
    store = make_store(server, "v4", AGENCIES)
    assert tool("download", store).returncode == 0
    return store


# ------------------------------------------------------------------ 1: proof of success

@pytest.mark.parametrize("batch", [False, True], ids=["single", "batch"])
def test_a_200_login_page_is_no_proof_and_the_change_stays_in_doubt(batch, tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    offline(tool, store, "PATCH", "TravelagencyCollection('00000001')", '{"name":"Proof Needed"}')
    # The page answers for the service (it never sees the request), as a login gateway does.
    proxy.add("respond", method="POST" if batch else "PATCH", status=200, content_type="text/html", body=HTML)
    options = ["--batch"] if batch else []

    code, document, stderr = upload(tool, store, *options)
    assert code == 1, stderr
    assert document["error"]["code"] == "OOD_HTTP"
    assert ("text/html" in stderr) if not batch else ("cannot be read" in stderr or "not multipart" in stderr), stderr
    assert "in doubt" in stderr and "1 requests stay queued" in stderr, stderr
    assert queue_of(tool, store) == [("PATCH", "inDoubt")]
    assert agency(v4, "00000001")["name"] != "Proof Needed"

    # The next upload reads the entity: the change is not there, so it is sent (once).
    code, document, stderr = upload(tool, store, *options)
    assert code == 0, stderr
    assert document == {"sent": 1, "archived": 0, "inDoubt": 0, "queued": 0}
    assert agency(v4, "00000001")["name"] == "Proof Needed"


@pytest.mark.parametrize("action, answer, applied", [
    # The service applies it and its answer is cut short.
    pytest.param("rewrite", {"status": 201, "body": '{"agencynum":"0000', "content_type": "application/json"}, True,
                 id="cut-json"),
    # Something in front of the service answers 201 with neither the entity nor a Location.
    pytest.param("respond", {"status": 201, "body": ""}, False, id="201-without-entity-or-location"),
])
def test_a_create_answered_without_its_entity_is_no_proof(action, answer, applied, tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    # No key in the body: the service assigns it (odatapy --autokey), so only the answer names it.
    offline(tool, store, "POST", "TravelagencyCollection", '{"name":"Keyless Proof","city":"Oslo","country":"NO"}')
    proxy.add(action, method="POST", **answer)

    code, _, stderr = upload(tool, store)
    assert code == 1, stderr
    assert "in doubt" in stderr, stderr
    assert queue_of(tool, store) == [("POST", "inDoubt")]
    assert len(agencies_named(v4, "Keyless Proof")) == int(applied)

    # Not sent again: the engine cannot find a create whose key the service chose, so it asks.
    code, document, stderr = upload(tool, store)
    assert code == 3, stderr
    assert document == {"sent": 0, "archived": 1, "inDoubt": 1, "queued": 0}
    archive = status(tool, store)["errorArchive"]
    assert [(entry["method"], entry["kind"]) for entry in archive] == [("POST", "inDoubt")]
    assert "cannot find out whether it created the entity" in archive[0]["message"]
    assert len(agencies_named(v4, "Keyless Proof")) == int(applied)


# ------------------------------------------------------------- 3: requests in doubt

@pytest.mark.parametrize("batch", [False, True], ids=["single", "batch"])
def test_a_post_applied_whose_answer_was_dropped_is_found_applied(batch, tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    offline(tool, store, "POST", "TravelagencyCollection", NEW_AGENCY)  # the body gives the key
    offline(tool, store, "PATCH", "TravelagencyCollection('00000002')", '{"name":"After The Drop"}')
    proxy.add("drop", method="POST")
    options = ["--batch", "--batch-size", "1"] if batch else []

    code, _, stderr = upload(tool, store, *options)
    assert code == 1, stderr
    assert agency(v4, "99000001")["name"] == "Offline Travel"  # applied, answer lost
    assert queue_of(tool, store) == [("POST", "inDoubt"), ("PATCH", "pending")]

    code, document, stderr = upload(tool, store, *options)
    assert code == 0, stderr
    # The POST was read back by its key and found applied: not sent again, not refused as a duplicate.
    assert document == {"sent": 2, "archived": 0, "inDoubt": 0, "queued": 0}
    posts = [entry for entry in proxy.log() if entry["method"] == "POST" and "$batch" not in entry["target"]]
    assert len(posts) == (0 if batch else 1)
    assert len(agencies_named(v4, "Offline Travel")) == 1
    assert agency(v4, "00000002")["name"] == "After The Drop"
    row = store_row(store, "TravelagencyCollection", "agencynum = ?", "99000001")
    assert row["_ood_change"] is None and row["_ood_etag"] == agency(v4, "99000001")["@odata.etag"]


def test_a_keyless_post_whose_answer_was_dropped_needs_a_decision(tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    offline(tool, store, "POST", "TravelagencyCollection", '{"name":"Dropped Keyless","city":"Oslo","country":"NO"}')
    offline(tool, store, "PATCH", "TravelagencyCollection('~1')", '{"city":"Bergen"}')
    offline(tool, store, "PATCH", "TravelagencyCollection('00000003')", '{"name":"Someone Else"}')
    proxy.add("drop", method="POST")

    assert upload(tool, store)[0] == 1
    code, document, stderr = upload(tool, store)
    assert code == 3, stderr
    # The create and the update that builds on it wait for the user; the other entity's change went.
    assert document == {"sent": 1, "archived": 2, "inDoubt": 2, "queued": 0}
    archive = status(tool, store)["errorArchive"]
    assert [(entry["method"], entry["kind"]) for entry in archive] == [("POST", "inDoubt"), ("PATCH", "inDoubt")]
    assert len(agencies_named(v4, "Dropped Keyless")) == 1  # never created twice
    assert agency(v4, "00000003")["name"] == "Someone Else"


@pytest.mark.parametrize("method, url, body", [
    ("PATCH", "TravelagencyCollection('00000001')", '{"name":"Applied Once"}'),
    ("DELETE", "TravelagencyCollection('00000001')", None),
])
def test_an_update_or_delete_applied_whose_answer_was_dropped_is_not_sent_again(method, url, body, tool, make_store, v4,
                                                                                 fault_proxy):
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    offline(tool, store, method, url, body)
    proxy.add("drop", method=method)
    assert upload(tool, store)[0] == 1
    assert queue_of(tool, store) == [(method, "inDoubt")]

    code, document, stderr = upload(tool, store)
    assert code == 0, stderr
    assert document["sent"] == 1 and document["archived"] == 0
    assert [entry["method"] for entry in proxy.log()].count(method) == 1  # read back, not re-sent
    if method == "DELETE":
        assert agency(v4, "00000001") is None
        assert store_row(store, "TravelagencyCollection", "agencynum = ?", "00000001") is None
    else:
        assert agency(v4, "00000001")["name"] == "Applied Once"


def test_a_request_that_never_reached_the_service_is_sent_after_the_check(tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    offline(tool, store, "PATCH", "TravelagencyCollection('00000001')", '{"name":"Sent Later"}')
    proxy.add("hang", method="PATCH", seconds=10)  # never forwarded
    failed = tool("upload", store, "--timeout", "2")
    assert failed.returncode == 1 and "timed out" in failed.stderr, failed.stderr
    assert queue_of(tool, store) == [("PATCH", "inDoubt")]
    assert agency(v4, "00000001")["name"] != "Sent Later"
    again = tool("upload", store)
    assert again.returncode == 0, again.stderr
    assert agency(v4, "00000001")["name"] == "Sent Later"


# ------------------------------------------------------- 4: transient refusals

@pytest.mark.parametrize("answer, advice", [
    pytest.param({"status": 401}, "valid credentials", id="401"),
    pytest.param({"status": 429, "headers": {"Retry-After": "120"}}, "throttling", id="429-long-retry-after"),
    pytest.param({"status": 503}, "the service failed (503)", id="503"),
])
@pytest.mark.parametrize("batch", [False, True], ids=["single", "batch"])
def test_a_refusal_that_is_not_the_requests_fault_stops_with_the_queue_intact(answer, advice, batch, tool, make_store,
                                                                               v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    offline(tool, store, "PATCH", "TravelagencyCollection('00000001')", '{"name":"Not Now"}')
    offline(tool, store, "POST", "TravelagencyCollection", NEW_AGENCY)
    queue = status(tool, store)["queue"]
    proxy.add("respond", method="POST" if batch else "PATCH", **answer)
    options = ["--batch"] if batch else []

    code, document, stderr = upload(tool, store, *options)
    assert code == 1, stderr
    assert advice in stderr and "2 requests stay queued" in stderr, stderr
    assert document["error"]["httpStatus"] == answer["status"]
    assert status(tool, store)["queue"] == queue  # as it was: pending, same ids, nothing archived
    assert status(tool, store)["errorArchive"] == []

    code, document, stderr = upload(tool, store, *options)
    assert code == 0, stderr
    assert document == {"sent": 2, "archived": 0, "inDoubt": 0, "queued": 0}
    assert agency(v4, "00000001")["name"] == "Not Now"


def test_a_429_with_a_short_retry_after_is_waited_for(tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    offline(tool, store, "PATCH", "TravelagencyCollection('00000001')", '{"name":"Waited For"}')
    proxy.add("respond", method="PATCH", status=429, headers={"Retry-After": "1"})
    started = time.monotonic()
    code, document, stderr = upload(tool, store)
    assert code == 0, stderr
    assert time.monotonic() - started >= 1.0
    assert document["sent"] == 1
    assert [entry["method"] for entry in proxy.log()].count("PATCH") == 2
    assert agency(v4, "00000001")["name"] == "Waited For"


def test_a_failing_csrf_token_fetch_stops_before_anything_is_sent(tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    offline(tool, store, "PATCH", "TravelagencyCollection('00000001')", '{"name":"Token First"}')
    queue = status(tool, store)["queue"]
    proxy.add("respond", method="GET", match=r"^/$", status=500)  # the fetch reads the service root
    code, _, stderr = upload(tool, store)
    assert code == 1, stderr
    assert "fetching a CSRF token failed" in stderr and "1 requests stay queued" in stderr, stderr
    assert status(tool, store)["queue"] == queue  # not even in doubt: nothing left
    assert [entry["method"] for entry in proxy.log()].count("PATCH") == 0


# ------------------------------------------------------------ 6: 428 without ETags

def without_etags(server, url: str) -> str:
    """The service's page with every `@odata.etag` left out, as services that give ETags only on
    single-entity reads answer a collection."""
    document = get_json(server.service_root + url)
    for entity in document.get("value", []):
        entity.pop("@odata.etag", None)
    return json.dumps(document)


@pytest.mark.parametrize("changed_on_service", [False, True], ids=["unchanged", "changed-on-service"])
def test_a_428_is_answered_with_the_entitys_etag_unless_it_changed(changed_on_service, tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    one = "TravelagencyCollection?$filter=agencynum eq '00000001'"
    store = make_store(proxy, "v4", ("Agency", one))
    proxy.add("rewrite", method="GET", match=r"^/TravelagencyCollection\?", body=without_etags(v4, one.replace(" ", "%20")))
    assert tool("download", store).returncode == 0
    assert store_row(store, "TravelagencyCollection", "agencynum = ?", "00000001")["_ood_etag"] is None
    proxy.clear()
    offline(tool, store, "PATCH", "TravelagencyCollection('00000001')", '{"name":"Needs An ETag"}')
    if changed_on_service:
        change_on_service(v4.service_root + "TravelagencyCollection('00000001')", {"city": "Changed Meanwhile"})

    code, document, stderr = upload(tool, store)
    patches = [entry for entry in proxy.log() if entry["method"] == "PATCH"]
    if not changed_on_service:
        assert code == 0, stderr
        assert document["sent"] == 1
        assert len(patches) == 2  # 428 without If-Match, then with the ETag read
        assert agency(v4, "00000001")["name"] == "Needs An ETag"
    else:
        assert code == 3, stderr
        archive = status(tool, store)["errorArchive"]
        assert [(entry["kind"], entry["httpStatus"]) for entry in archive] == [("conflict", 428)]
        assert "changed on the service" in archive[0]["message"]
        assert len(patches) == 1  # never sent over the other change
        on_service = agency(v4, "00000001")
        assert on_service["city"] == "Changed Meanwhile" and on_service["name"] != "Needs An ETag"


@pytest.mark.parametrize("policy", ["server-wins", "client-wins", "merge"])
def test_a_428_on_an_entity_changed_on_the_service_is_resolved_by_the_policy(policy, tool, make_store, v4, fault_proxy):
    """The ETag read after a 428 finds the entity changed on the service: a conflict, resolved by
    the upload's policy as a 412 would be (the archive is only the default's outcome)."""
    proxy = fault_proxy(v4)
    one = "TravelagencyCollection?$filter=agencynum eq '00000001'"
    store = make_store(proxy, "v4", ("Agency", one))
    proxy.add("rewrite", method="GET", match=r"^/TravelagencyCollection\?", body=without_etags(v4, one.replace(" ", "%20")))
    assert tool("download", store).returncode == 0
    proxy.clear()
    before = agency(v4, "00000001")
    offline(tool, store, "PATCH", "TravelagencyCollection('00000001')", '{"name":"Needs An ETag"}')
    change_on_service(v4.service_root + "TravelagencyCollection('00000001')", {"city": "Changed Meanwhile"})

    result = tool("upload", store, "--json", "--no-compact", "--conflicts", policy)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout.strip().splitlines()[-1])
    assert status(tool, store)["errorArchive"] == [] and status(tool, store)["queue"] == []
    patches = [entry for entry in proxy.log() if entry["method"] == "PATCH"]
    on_service = agency(v4, "00000001")
    row = store_row(store, "TravelagencyCollection", "agencynum = ?", "00000001")
    assert on_service["city"] == "Changed Meanwhile" and row["city"] == "Changed Meanwhile"
    if policy == "server-wins":
        assert (document["sent"], document["discarded"]) == (0, 1)
        assert len(patches) == 1  # the 428; never sent over the other change
        assert on_service["name"] == before["name"] and row["name"] == before["name"]
    else:
        # Sent again on the service's ETag: the name arrives beside the other change, which stays.
        assert (document["sent"], document.get("discarded", 0)) == (1, 0)
        assert len(patches) == 2  # the 428, then the change with the read ETag (the service wants one)
        assert on_service["name"] == "Needs An ETag" and row["name"] == "Needs An ETag"
        assert row["_ood_change"] is None


# ------------------------------------------------------- repeatable requests

@pytest.fixture
def repeatable(v4_repeatable):
    return v4_repeatable


def make_store_from_service(tool, tmp_path, server, proxy):
    """A store whose $metadata is the service's own (so it declares repeatable requests)."""
    metadata = tmp_path / "service-metadata.xml"
    with urllib.request.urlopen(server.service_root + "$metadata", timeout=30) as response:
        metadata.write_bytes(response.read())
    path = tmp_path / "repeatable.store"
    created = tool("store", "create", path, "--metadata", metadata, "--service", proxy.service_root,
                   "--defining", "Agencies=TravelagencyCollection")
    assert created.returncode == 0, created.stderr
    assert tool("download", path).returncode == 0
    return path


@pytest.mark.parametrize("batch", [False, True], ids=["single", "batch"])
def test_a_keyless_post_to_a_repeatable_service_is_sent_again_and_applied_once(batch, tool, tmp_path, repeatable,
                                                                                 fault_proxy):
    proxy = fault_proxy(repeatable)
    store = make_store_from_service(tool, tmp_path, repeatable, proxy)
    offline(tool, store, "POST", "TravelagencyCollection", '{"name":"Repeated Keyless","city":"Oslo","country":"NO"}')
    proxy.add("drop", method="POST")
    options = ["--batch"] if batch else []
    assert upload(tool, store, *options)[0] == 1
    assert len(agencies_named(repeatable, "Repeated Keyless")) == 1

    code, document, stderr = upload(tool, store, *options)
    assert code == 0, stderr
    assert document == {"sent": 1, "archived": 0, "inDoubt": 0, "queued": 0}
    assert len(agencies_named(repeatable, "Repeated Keyless")) == 1
    served = agencies_named(repeatable, "Repeated Keyless")[0]["agencynum"]
    assert store_row(store, "TravelagencyCollection", "agencynum = ?", served)["_ood_change"] is None


@pytest.fixture(scope="module")
def strict_v2_server():
    """mock-sap refusing a change without If-Match (428), as strict Gateway services do."""
    server = backends.start_v2(csrf=True, data="small", require_if_match=True)
    yield server
    server.stop()


def test_a_change_of_a_set_that_checks_etags_is_sent_with_the_etag_a_read_gives(tool, make_store, strict_v2_server,
                                                                                fault_proxy):
    v2 = strict_v2_server
    v2.reset()
    proxy = fault_proxy(v2)
    one = "TravelagencyCollection?$filter=agencynum eq '00000001'"
    page = get_json(v2.service_root + one.replace(" ", "%20") + "&$format=json")
    for entity in page["d"]["results"]:
        entity["__metadata"].pop("etag", None)  # a collection answered without ETags
    store = make_store(proxy, "v2", ("Agency", one))
    proxy.add("rewrite", method="GET", match=r"^/sap/.*/TravelagencyCollection\?", body=json.dumps(page))
    assert tool("download", store).returncode == 0
    assert store_row(store, "TravelagencyCollection", "agencynum = ?", "00000001")["_ood_etag"] is None
    proxy.clear()
    offline(tool, store, "PATCH", "TravelagencyCollection('00000001')", '{"name":"Read For Its ETag"}')

    code, document, stderr = upload(tool, store)
    assert code == 0, stderr
    assert document["sent"] == 1
    # The model says the set checks ETags (ConcurrencyMode="Fixed"): the entity was read first, and
    # the one change sent carried the ETag, so the service took it without a 428 round trip.
    writes = [entry for entry in proxy.log() if entry["method"] not in ("GET", "HEAD")]
    reads = [entry for entry in proxy.log() if entry["method"] == "GET" and "TravelagencyCollection('00000001')" in entry["target"]]
    assert len(writes) == 1 and len(reads) == 1, proxy.log()
    served = get_json(v2.service_root + "TravelagencyCollection('00000001')?$format=json")["d"]
    assert served["name"] == "Read For Its ETag"
