"""Probes of the V4 backend's repeatable requests (`odatapy_server.py --repeatable`,
`backends.start_v4(repeatable=True)`; OASIS Repeatable Requests 1.0), against the real server."""
from __future__ import annotations

import json
import re
import uuid
import xml.etree.ElementTree as ET

import pytest

import backends
from test_backends import call

EDM = "{http://docs.oasis-open.org/odata/ns/edm}"
EDMX = "{http://docs.oasis-open.org/odata/ns/edmx}"
TERM = "Org.OData.Repeatability.V1.Supported"
FIRST_SENT = "Tue, 24 Nov 2026 03:00:00 GMT"
NEW = {"name": "Repeat Travel", "city": "Rome", "country": "IT", "currency": "EUR"}


@pytest.fixture
def rv4(v4_repeatable):
    return v4_repeatable


def ids(request_id: str, client_id: str = "c0ffee") -> dict:
    return {"Repeatability-Request-ID": request_id, "Repeatability-Client-ID": client_id,
            "Repeatability-First-Sent": FIRST_SENT}


def count(backend, set_name: str = "TravelagencyCollection") -> int:
    reply = call(backend.url(f"{set_name}/$count"))
    assert reply.status == 200
    return int(reply.text)


def batch(ops, boundary: str | None = None, changeset: str | None = None) -> tuple[str, dict]:
    """A multipart $batch of one change set of (content_id, method, path, body, headers)."""
    boundary = boundary or "batch_" + uuid.uuid4().hex
    changeset = changeset or "changeset_" + uuid.uuid4().hex
    text = f"--{boundary}\r\nContent-Type: multipart/mixed; boundary={changeset}\r\n\r\n"
    for cid, method, path, body, headers in ops:
        head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        text += (f"--{changeset}\r\nContent-Type: application/http\r\n"
                 f"Content-Transfer-Encoding: binary\r\nContent-ID: {cid}\r\n\r\n"
                 f"{method} {path} HTTP/1.1\r\nContent-Type: application/json\r\n"
                 f"Accept: application/json\r\n{head}\r\n" + json.dumps(body) + "\r\n")
    text += f"--{changeset}--\r\n--{boundary}--\r\n"
    return text, {"Content-Type": f"multipart/mixed; boundary={boundary}"}


def parts(text: str) -> list[tuple[int, dict, str]]:
    """The embedded answers of a multipart $batch answer: (status, headers, body)."""
    found = []
    for match in re.finditer(r"HTTP/1.1 (\d{3})[^\r\n]*\r\n(.*?)\r\n\r\n(.*?)\r\n--", text, re.S):
        headers = dict(line.split(": ", 1) for line in match.group(2).split("\r\n") if line)
        found.append((int(match.group(1)), headers, match.group(3)))
    return found


def without_result(headers) -> dict:
    return {k: v for k, v in dict(headers).items() if k.lower() != "repeatability-result"}


# --------------------------------------------------------------------------------- $metadata

def test_metadata_declares_repeatable_requests(rv4):
    reply = call(rv4.url("$metadata"))
    assert reply.status == 200
    root = ET.fromstring(reply.body)
    references = root.findall(f"{EDMX}Reference")
    assert any(ref.get("Uri", "").endswith("/Org.OData.Repeatability.V1.xml")
               and ref.find(f"{EDMX}Include").get("Namespace") == "Org.OData.Repeatability.V1"
               for ref in references)
    container = next(root.iter(f"{EDM}EntityContainer"))
    annotations = [a.attrib for a in container.findall(f"{EDM}Annotation")]
    assert annotations == [{"Term": TERM, "Bool": "true"}]
    # Nowhere else, and the rest of the document is what it was.
    assert reply.text.count(TERM) == 1
    assert len(container.findall(f"{EDM}EntitySet")) == 4


def test_metadata_without_the_option_has_no_annotation(v4):
    assert "Repeatability" not in call(v4.url("$metadata")).text


# ---------------------------------------------------------------------------- single requests

def test_same_post_twice_creates_one_entity(rv4):
    before = count(rv4)
    first = call(rv4.url("TravelagencyCollection"), "POST", NEW, ids("c0ffee-1"))
    again = call(rv4.url("TravelagencyCollection"), "POST", NEW, ids("c0ffee-1"))
    assert (first.status, first.header("Repeatability-Result")) == (201, "accepted")
    assert (again.status, again.header("Repeatability-Result")) == (201, "replayed")
    assert again.body == first.body
    assert without_result(again.headers.items()) == without_result(first.headers.items())
    assert count(rv4) == before + 1
    # Another id is another request; so is the same request id from another client.
    other = call(rv4.url("TravelagencyCollection"), "POST", NEW, ids("c0ffee-2"))
    assert (other.status, other.header("Repeatability-Result")) == (201, "accepted")
    assert other.json()["agencynum"] != first.json()["agencynum"]
    elsewhere = call(rv4.url("TravelagencyCollection"), "POST", NEW, ids("c0ffee-1", "beef"))
    assert elsewhere.header("Repeatability-Result") == "accepted"
    assert count(rv4) == before + 3


def test_without_an_id_nothing_is_remembered(rv4):
    before = count(rv4)
    for _ in range(2):
        reply = call(rv4.url("TravelagencyCollection"), "POST", NEW)
        assert reply.status == 201 and reply.header("Repeatability-Result") is None
    assert count(rv4) == before + 2
    reply = call(rv4.url("TravelagencyCollection('00000001')"), headers=ids("c0ffee-9"))
    assert reply.status == 200 and reply.header("Repeatability-Result") is None   # GET: not tracked


def test_replayed_patch_is_not_applied_again(rv4):
    url = rv4.url("TravelagencyCollection('00000001')")
    headers = dict(ids("c0ffee-3"), **{"If-Match": 'W/"1"'})
    first = call(url, "PATCH", {"telephone": "+39 06 1"}, headers)
    assert (first.status, first.header("Repeatability-Result")) == (204, "accepted")
    # Applied again, the stale If-Match would give 412; replayed, it is the first 204.
    again = call(url, "PATCH", {"telephone": "+39 06 1"}, headers)
    assert (again.status, again.header("Repeatability-Result")) == (204, "replayed")
    assert call(url).json()["@odata.etag"] == 'W/"2"'


def test_a_failed_request_is_replayed_as_it_failed(rv4):
    url = rv4.url("TravelagencyCollection('00000001')")
    headers = dict(ids("c0ffee-4"), **{"If-Match": 'W/"7"'})
    first = call(url, "PATCH", {"telephone": "x"}, headers)
    again = call(url, "PATCH", {"telephone": "x"}, headers)
    assert (first.status, again.status, again.header("Repeatability-Result")) == (412, 412, "replayed")
    assert again.body == first.body


def test_reset_forgets_the_answers(rv4):
    before = count(rv4)
    assert call(rv4.url("TravelagencyCollection"), "POST", NEW, ids("c0ffee-5")).status == 201
    rv4.reset()
    reply = call(rv4.url("TravelagencyCollection"), "POST", NEW, ids("c0ffee-5"))
    assert (reply.status, reply.header("Repeatability-Result")) == (201, "accepted")
    assert count(rv4) == before + 1


def test_log_of_the_requests_with_ids(rv4):
    call(rv4.url("TravelagencyCollection"), "POST", NEW, ids("c0ffee-6"))
    call(rv4.url("TravelagencyCollection"), "POST", NEW, ids("c0ffee-6"))
    log = call(rv4.origin + "/_repeatability").json()["requests"]
    assert log == [
        {"client_id": "c0ffee", "request_id": "c0ffee-6", "first_sent": FIRST_SENT, "method": "POST",
         "path": "TravelagencyCollection", "in_changeset": False, "result": result, "status": 201}
        for result in ("accepted", "replayed")]


# -------------------------------------------------------------------------------------- $batch

def test_same_change_set_twice_creates_once(rv4):
    payload, headers = batch([
        (1, "POST", "TravelagencyCollection", NEW, ids("c0ffee-10")),
        (2, "POST", "$1/AgencyBookings", {"carrid": "AA", "connid": "0017", "fldate": "2016-01-20",
                                          "bookid": "90000001", "passname": "Via $1"}, ids("c0ffee-11")),
        (3, "POST", "TravelagencyCollection", dict(NEW, name="Third"), ids("c0ffee-12"))])
    agencies, bookings = count(rv4), count(rv4, "BookingCollection")
    first = call(rv4.url("$batch"), "POST", payload, headers)
    assert first.status == 200
    answers = parts(first.text)
    assert [(s, h.get("Repeatability-Result")) for s, h, _ in answers] == [(201, "accepted")] * 3
    again = call(rv4.url("$batch"), "POST", payload, headers)
    replayed = parts(again.text)
    assert [(s, h.get("Repeatability-Result")) for s, h, _ in replayed] == [(201, "replayed")] * 3
    assert [body for _, _, body in replayed] == [body for _, _, body in answers]
    assert [h["Location"] for _, h, _ in replayed] == [h["Location"] for _, h, _ in answers]
    assert (count(rv4), count(rv4, "BookingCollection")) == (agencies + 2, bookings + 1)
    log = call(rv4.origin + "/_repeatability").json()["requests"]
    assert [(e["request_id"], e["in_changeset"], e["result"]) for e in log] == \
        [(f"c0ffee-{n}", True, "accepted") for n in (10, 11, 12)] + \
        [(f"c0ffee-{n}", True, "replayed") for n in (10, 11, 12)]


def test_single_requests_and_change_sets_share_the_ids(rv4):
    before = count(rv4)
    assert call(rv4.url("TravelagencyCollection"), "POST", NEW, ids("c0ffee-20")).status == 201
    payload, headers = batch([(1, "POST", "TravelagencyCollection", NEW, ids("c0ffee-20")),
                              (2, "POST", "TravelagencyCollection", NEW, ids("c0ffee-21"))])
    answers = parts(call(rv4.url("$batch"), "POST", payload, headers).text)
    assert [h.get("Repeatability-Result") for _, h, _ in answers] == ["replayed", "accepted"]
    assert count(rv4) == before + 2


def test_a_rolled_back_change_set_is_executed_when_sent_again(rv4):
    before = count(rv4)
    # The second create collides with a seed key: the change set rolls back, nothing applied.
    payload, headers = batch([(1, "POST", "TravelagencyCollection", NEW, ids("c0ffee-30")),
                              (2, "POST", "TravelagencyCollection", dict(NEW, agencynum="00000001"),
                               ids("c0ffee-31"))])
    failed = call(rv4.url("$batch"), "POST", payload, headers)
    assert [s for s, _, _ in parts(failed.text)] == [409]
    assert count(rv4) == before
    # Sent again (the collision fixed under a new id): the first part is executed, not replayed.
    payload, headers = batch([(1, "POST", "TravelagencyCollection", NEW, ids("c0ffee-30")),
                              (2, "POST", "TravelagencyCollection", NEW, ids("c0ffee-32"))])
    answers = parts(call(rv4.url("$batch"), "POST", payload, headers).text)
    assert [(s, h.get("Repeatability-Result")) for s, h, _ in answers] == [(201, "accepted")] * 2
    assert count(rv4) == before + 2
    log = call(rv4.origin + "/_repeatability").json()["requests"]
    assert [(e["request_id"], e["result"], e["status"]) for e in log] == [
        ("c0ffee-30", "rolled back", 201), ("c0ffee-31", "rolled back", 409),
        ("c0ffee-30", "accepted", 201), ("c0ffee-32", "accepted", 201)]


def test_ids_on_the_batch_request_itself(rv4):
    before = count(rv4)
    payload, headers = batch([(1, "POST", "TravelagencyCollection", NEW, {})])
    headers.update(ids("c0ffee-40"))
    first = call(rv4.url("$batch"), "POST", payload, headers)
    again = call(rv4.url("$batch"), "POST", payload, headers)
    assert (first.header("Repeatability-Result"), again.header("Repeatability-Result")) == \
        ("accepted", "replayed")
    assert again.body == first.body
    assert count(rv4) == before + 1


def test_replay_result_can_be_the_specifications_accepted():
    with backends.start_v4(data="tiny", repeatable=True, replay_result="accepted") as v4:
        replies = [call(v4.url("TravelagencyCollection"), "POST", NEW, ids("c0ffee-50"))
                   for _ in range(2)]
        assert [r.header("Repeatability-Result") for r in replies] == ["accepted", "accepted"]
        assert replies[0].body == replies[1].body
        assert [e["result"] for e in call(v4.origin + "/_repeatability").json()["requests"]] == \
            ["accepted", "replayed"]


def test_the_same_id_at_once_from_many_threads_creates_one(rv4):
    """A duplicate that comes while the first is executing waits for it and gets its answer."""
    from concurrent.futures import ThreadPoolExecutor

    before = count(rv4)
    with ThreadPoolExecutor(max_workers=8) as pool:
        replies = list(pool.map(lambda _: call(rv4.url("TravelagencyCollection"), "POST", NEW,
                                                ids("c0ffee-60")), range(8)))
    assert sorted(r.header("Repeatability-Result") for r in replies) == ["accepted"] + ["replayed"] * 7
    assert {r.status for r in replies} == {201} and len({r.body for r in replies}) == 1
    assert count(rv4) == before + 1
