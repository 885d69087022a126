"""The fault proxy's own actions (`fault_proxy.py`), against the real V4 backend; no tool needed.

Each test checks both sides: what the client gets through the proxy, and what the backend (read
directly, not through the proxy) applied. The last ones put the proxy in front of a backend with
repeatable requests (`backends.start_v4(repeatable=True)`): the scenario the exactly-once upload
is about, a POST applied by the service whose answer is lost, then sent again.
"""
from __future__ import annotations

import http.client
import json
import re
import urllib.parse
import uuid

import pytest


AGENCY = {"agencynum": "99000001", "name": "Proxy Travel", "city": "Rome", "country": "IT",
          "currency": "EUR"}


# ------------------------------------------------------------------------------------- helpers

def send(url: str, method: str = "GET", body: bytes | str | dict | None = None,
         headers: dict | None = None, chunked: bool = False):
    """One request on its own connection: (status, headers as a dict with lower-case names, body).
    Raises what http.client raises when the connection ends without an answer."""
    parts = urllib.parse.urlsplit(url)
    headers = dict(headers or {})
    if isinstance(body, dict):
        body = json.dumps(body)
        headers.setdefault("Content-Type", "application/json")
    if isinstance(body, str):
        body = body.encode()
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        if chunked:
            connection.request(method, target, body=iter([body[:10], body[10:]]), headers=headers,
                               encode_chunked=True)
        else:
            connection.request(method, target, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def agency_count(backend) -> int:
    status, _, body = send(backend.service_root + "TravelagencyCollection/$count")
    assert status == 200
    return int(body)


def agency_status(backend, key: str) -> int:
    return send(backend.service_root + f"TravelagencyCollection('{key}')")[0]


def batch_body(boundary: str, changeset: str, ops) -> str:
    """A multipart $batch of one change set of (content_id, method, path, body, extra headers)."""
    text = f"--{boundary}\r\nContent-Type: multipart/mixed; boundary={changeset}\r\n\r\n"
    for cid, method, path, body, extra in ops:
        head = "".join(f"{name}: {value}\r\n" for name, value in extra.items())
        text += (f"--{changeset}\r\nContent-Type: application/http\r\n"
                 f"Content-Transfer-Encoding: binary\r\nContent-ID: {cid}\r\n\r\n"
                 f"{method} {path} HTTP/1.1\r\nContent-Type: application/json\r\n"
                 f"Accept: application/json\r\n{head}\r\n" + json.dumps(body) + "\r\n")
    return text + f"--{changeset}--\r\n--{boundary}--\r\n"


def part_statuses(body: bytes) -> list[str]:
    return re.findall(r"HTTP/1.1 (\d{3})", body.decode())


# --------------------------------------------------------------------------------------- drop

def test_drop_applies_on_the_backend_and_the_client_gets_no_answer(v4, fault_proxy):
    proxy = fault_proxy(v4)
    proxy.add("drop", method="POST", match=r"TravelagencyCollection$")
    with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
        send(proxy.service_root + "TravelagencyCollection", "POST", AGENCY)
    assert agency_status(v4, AGENCY["agencynum"]) == 200          # the service applied it
    assert proxy.log() == [{"method": "POST", "target": "/TravelagencyCollection", "fault": "drop",
                            "forwarded": True, "reused": False}]
    # Only that request: the next one goes through.
    status, _, _ = send(proxy.service_root + "TravelagencyCollection", "POST",
                        dict(AGENCY, agencynum="99000002"))
    assert status == 201


def test_drop_with_reset_sends_a_tcp_reset(v4, fault_proxy):
    proxy = fault_proxy(v4)
    rule = proxy.add("drop", method="POST", reset=True)
    assert rule["reset"] is True
    with pytest.raises(ConnectionResetError):
        send(proxy.service_root + "TravelagencyCollection", "POST", AGENCY)
    assert agency_status(v4, AGENCY["agencynum"]) == 200


def test_drop_of_a_batch_applies_its_change_set(v4, fault_proxy):
    proxy = fault_proxy(v4)
    proxy.add("drop", match=r"\$batch")
    payload = batch_body("b1", "c1", [(1, "POST", "TravelagencyCollection", AGENCY, {})])
    with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
        send(proxy.service_root + "$batch", "POST", payload,
             {"Content-Type": "multipart/mixed; boundary=b1"})
    assert agency_status(v4, AGENCY["agencynum"]) == 200


# ------------------------------------------------------------------------------------ respond

def test_respond_login_page_is_never_forwarded(v4, fault_proxy):
    proxy = fault_proxy(v4)
    page = "<html><body><form action='/login'>Please log in</form></body></html>"
    proxy.add("respond", method="POST", status=200, content_type="text/html", body=page)
    before = agency_count(v4)
    status, headers, body = send(proxy.service_root + "TravelagencyCollection", "POST", AGENCY)
    assert (status, headers["content-type"], body.decode()) == (200, "text/html", page)
    assert headers["content-length"] == str(len(page))
    assert agency_count(v4) == before
    assert proxy.log()[0] == {"method": "POST", "target": "/TravelagencyCollection",
                              "fault": "respond", "forwarded": False, "reused": False}


def test_respond_statuses_headers_and_bodies(v4, fault_proxy):
    proxy = fault_proxy(v4)
    url = proxy.service_root + "TravelagencyCollection"
    proxy.add("respond", method="POST", status=429, headers={"Retry-After": "1"})
    status, headers, body = send(url, "POST", AGENCY)
    assert (status, headers["retry-after"], headers["content-type"]) == (429, "1", "application/json")
    assert json.loads(body)["error"]["code"] == "PROXY_FAULT"      # the OData error body
    proxy.add("respond", method="POST", status=401, headers={"WWW-Authenticate": 'Basic realm="x"'})
    status, headers, _ = send(url, "POST", AGENCY)
    assert (status, headers["www-authenticate"]) == (401, 'Basic realm="x"')
    proxy.add("respond", method="POST", status=503, body='{"error":{"code":"X","message":"down"}}')
    status, headers, body = send(url, "POST", AGENCY)
    assert (status, headers["content-type"], json.loads(body)["error"]["message"]) == \
        (503, "application/json", "down")
    # A 201 with no body and no Location.
    proxy.add("respond", method="POST", status=201, body="")
    status, headers, body = send(url, "POST", AGENCY)
    assert (status, body, headers["content-length"]) == (201, b"", "0")
    assert "location" not in headers and "content-type" not in headers
    assert agency_status(v4, AGENCY["agencynum"]) == 404           # none of them reached it
    assert [entry["fault"] for entry in proxy.log()] == ["respond"] * 4
    assert not any(entry["forwarded"] for entry in proxy.log())


def test_error_takes_headers_and_keeps_its_default(v4, fault_proxy):
    proxy = fault_proxy(v4)
    proxy.add("error", method="GET", nth=1)
    proxy.add("error", method="GET", nth=2, status=503, headers={"Retry-After": "2"})
    status, headers, body = send(proxy.service_root + "TravelagencyCollection")
    assert status == 500 and "retry-after" not in headers
    assert json.loads(body)["error"]["code"] == "PROXY_FAULT"
    status, headers, _ = send(proxy.service_root + "TravelagencyCollection")
    assert (status, headers["retry-after"]) == (503, "2")


def test_rules_are_checked(v4, fault_proxy):
    proxy = fault_proxy(v4)
    for bad in ({"action": "respond", "headers": ["x"]}, {"action": "respond", "body": 1},
                {"action": "nope"}):
        status, _, _ = send(proxy.origin + "/_proxy/rules", "POST", bad)
        assert status == 400


# ------------------------------------------------------------------------------------ rewrite

def test_rewrite_forwards_and_replaces_the_body(v4, fault_proxy):
    proxy = fault_proxy(v4)
    cut = '{"@odata.context":"$metadata#TravelagencyCollection/$entity","agencynum":"990'
    proxy.add("rewrite", method="POST", body=cut)
    status, headers, body = send(proxy.service_root + "TravelagencyCollection", "POST", AGENCY)
    assert (status, body.decode()) == (201, cut)
    assert headers["content-length"] == str(len(cut))
    assert headers["content-type"].startswith("application/json")   # the backend's
    assert headers["location"].endswith("TravelagencyCollection('99000001')")
    assert agency_status(v4, AGENCY["agencynum"]) == 200
    assert proxy.log()[0]["fault"] == "rewrite" and proxy.log()[0]["forwarded"]
    # With a content type and headers of its own.
    proxy.add("rewrite", method="GET", body="<html>login</html>", content_type="text/html",
              headers={"Location": "http://example.invalid/"})
    status, headers, body = send(proxy.service_root + "TravelagencyCollection('99000001')")
    assert (status, headers["content-type"], body) == (200, "text/html", b"<html>login</html>")
    assert headers["location"] == "http://example.invalid/"
    assert "etag" in headers                                          # the backend's, kept


# ------------------------------------------------------------------------ $batch, chunked bodies

def test_batch_goes_through_unchanged(v4, fault_proxy):
    proxy = fault_proxy(v4)
    payload = batch_body("batch_x", "changeset_x", [
        (1, "POST", "TravelagencyCollection", AGENCY, {}),
        (2, "POST", "$1/AgencyBookings", {"carrid": "AA", "connid": "0017", "fldate": "2016-01-20",
                                          "bookid": "99000001", "passname": "Via $1"}, {})])
    status, headers, body = send(proxy.service_root + "$batch", "POST", payload,
                                 {"Content-Type": "multipart/mixed; boundary=batch_x"})
    assert status == 200 and headers["content-type"].startswith("multipart/mixed")
    assert part_statuses(body) == ["201", "201"]
    assert proxy.origin.encode() in body                              # links on the proxy
    assert agency_status(v4, AGENCY["agencynum"]) == 200


def test_chunked_request_body_is_forwarded(v4, fault_proxy):
    proxy = fault_proxy(v4)
    status, _, _ = send(proxy.service_root + "TravelagencyCollection", "POST",
                        json.dumps(AGENCY), {"Content-Type": "application/json"}, chunked=True)
    assert status == 201
    assert agency_status(v4, AGENCY["agencynum"]) == 200


# ------------------------------------------------------- with repeatable requests on the service

@pytest.fixture
def repeatable(v4_repeatable):
    return v4_repeatable


def repeatability(request_id: str) -> dict:
    return {"Repeatability-Request-ID": request_id, "Repeatability-Client-ID": "c0ffee",
            "Repeatability-First-Sent": "Tue, 24 Nov 2026 03:00:00 GMT"}


def test_lost_answer_then_resend_is_applied_once(repeatable, fault_proxy):
    proxy = fault_proxy(repeatable)
    proxy.add("drop", method="POST")
    before = agency_count(repeatable)
    url = proxy.service_root + "TravelagencyCollection"
    body = {k: v for k, v in AGENCY.items() if k != "agencynum"}     # the server makes the key
    with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
        send(url, "POST", body, repeatability("c0ffee-1"))
    status, headers, answer = send(url, "POST", body, repeatability("c0ffee-1"))
    assert (status, headers["repeatability-result"]) == (201, "replayed")
    assert agency_count(repeatable) == before + 1
    key = json.loads(answer)["agencynum"]
    assert headers["location"] == proxy.service_root + f"TravelagencyCollection('{key}')"


def test_lost_batch_answer_then_resend_is_applied_once(repeatable, fault_proxy):
    proxy = fault_proxy(repeatable)
    proxy.add("drop", match=r"\$batch")
    body = {k: v for k, v in AGENCY.items() if k != "agencynum"}
    boundary = "batch_" + uuid.uuid4().hex
    payload = batch_body(boundary, "changeset_1", [
        (1, "POST", "TravelagencyCollection", body, repeatability("c0ffee-7")),
        (2, "POST", "TravelagencyCollection", dict(body, name="Second"), repeatability("c0ffee-8"))])
    before = agency_count(repeatable)
    url, content_type = proxy.service_root + "$batch", {"Content-Type": f"multipart/mixed; boundary={boundary}"}
    with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
        send(url, "POST", payload, content_type)
    status, _, answer = send(url, "POST", payload, content_type)
    assert status == 200 and part_statuses(answer) == ["201", "201"]
    assert answer.decode().count("Repeatability-Result: replayed") == 2
    assert agency_count(repeatable) == before + 2
