"""The test services' media (issue 35): V4 `Edm.Stream` properties (media_streams.StreamProperties)
and V2 media entities on mock-sap (media_v2.py), probed over HTTP."""
from __future__ import annotations

import http.cookiejar
import json
import urllib.error
import urllib.request

import pytest

import backends
from media_streams import content_for, etag_for


def call(url: str, method: str = "GET", body: bytes | None = None, headers: dict | None = None, opener=None):
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        send = opener.open if opener else urllib.request.urlopen
        with send(request, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


@pytest.fixture(scope="module")
def media_v4():
    server = backends.start_v4_media(count=2, size=3_000)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def media_v2():
    server = backends.start_v2_media(count=2, size=2_000)
    yield server
    server.stop()


def test_v4_stream_properties_are_served_with_ranges_etags_and_put(media_v4):
    root = media_v4.service_root
    status, headers, body = call(root + "Inspections(1)/photo")
    assert status == 200 and body == content_for("Inspections", (1, "photo"), 3_000)
    assert headers["ETag"] == etag_for(body) and headers["Content-Type"] == "image/jpeg"
    status, headers, part = call(root + "Inspections(1)/photo", headers={"Range": "bytes=1000-"})
    assert status == 206 and part == body[1000:] and headers["Content-Range"] == "bytes 1000-2999/3000"
    assert call(root + "Inspections(1)/photo", headers={"If-None-Match": etag_for(body)})[0] == 304
    assert call(root + "Inspections(3)/signature")[0] == 204  # the third has none
    assert call(root + "Inspections(9)/photo")[0] == 404
    entity = json.loads(call(root + "Inspections(2)")[2])
    assert "photo" not in entity and entity["@odata.etag"] == 'W/"1"'
    assert call(root + "Inspections(2)/photo", "PUT", b"new", {"Content-Type": "image/png", "If-Match": 'W/"9"'})[0] == 412
    status, headers, _ = call(root + "Inspections(2)/photo", "PUT", b"new", {"Content-Type": "image/png", "If-Match": 'W/"1"'})
    assert status == 204 and headers["ETag"] == etag_for(b"new")
    assert json.loads(call(root + "Inspections(2)")[2])["@odata.etag"] == 'W/"2"'  # a change of its entity
    status, headers, body = call(root + "Inspections(2)/photo")
    assert body == b"new" and headers["Content-Type"] == "image/png"
    log = json.loads(call(media_v4.origin + "/_media_log")[2])
    assert [p["path"] for p in log["puts"]] == ["/Inspections(2)/photo"] * 2


def test_v2_media_entities_are_served_created_and_replaced(media_v2):
    root = media_v2.service_root
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    status, headers, body = call(root + "Documents('000001')/$value", opener=opener)
    assert status == 200 and body == content_for("Documents", ("000001",), 2_000)
    assert headers["Content-Type"] == "application/pdf" and headers["ETag"] == etag_for(body)
    listed = json.loads(call(root + "Documents?$format=json", opener=opener)[2])["d"]["results"]
    assert [e["__metadata"]["media_etag"] for e in listed][0] == etag_for(body)
    assert listed[0]["__metadata"]["media_src"].endswith("Documents('000001')/$value")
    # Writes need the CSRF token.
    assert call(root + "Documents", "POST", b"photo", {"Content-Type": "image/jpeg"}, opener=opener)[0] == 403
    token = call(root, headers={"X-CSRF-Token": "Fetch"}, opener=opener)[1]["x-csrf-token"]
    status, headers, body = call(root + "Documents", "POST", b"photo",
                                 {"Content-Type": "image/jpeg", "X-CSRF-Token": token, "Accept": "application/json"}, opener=opener)
    assert status == 201 and headers["Location"].endswith("Documents('000003')")
    created = json.loads(body)["d"]
    assert created["DocId"] == "000003" and created["__metadata"]["media_etag"] == etag_for(b"photo")
    assert call(root + "Documents('000003')/$value", opener=opener)[2] == b"photo"
    stale = {"Content-Type": "text/plain", "X-CSRF-Token": token, "If-Match": 'W/"datetime\'2000-01-01T00%3A00%3A00\'"'}
    assert call(root + "Documents('000003')/$value", "PUT", b"x", stale, opener=opener)[0] == 412
    etag = created["__metadata"]["etag"]
    status = call(root + "Documents('000003')/$value", "PUT", b"again",
                  {"Content-Type": "text/plain", "X-CSRF-Token": token, "If-Match": etag}, opener=opener)[0]
    assert status == 204
    after = json.loads(call(root + "Documents('000003')?$format=json", opener=opener)[2])["d"]
    assert after["__metadata"]["etag"] != etag and after["__metadata"]["media_etag"] == etag_for(b"again")
    log = json.loads(call(media_v2.origin + "/_media_log")[2])
    assert [p["bytes"] for p in log["posts"]] == [5] and [p["bytes"] for p in log["puts"]] == [5]


def test_media_etags_are_announced_and_a_quiet_change_keeps_the_entity_etag(media_v4, media_v2):
    """Entities announce their streams' media ETags (V4 `Prop@odata.mediaEtag`, `@odata.mediaEtag`;
    V2 `__metadata.media_etag`), and `/_media_quiet_change` changes a stream without its entity's ETag."""
    root = media_v4.service_root
    entity = json.loads(call(root + "Inspections(1)")[2])
    assert entity["photo@odata.mediaEtag"] == etag_for(call(root + "Inspections(1)/photo")[2])
    listed = json.loads(call(root + "Inspections")[2])["value"]
    assert "signature@odata.mediaEtag" not in next(e for e in listed if e["id"] == 3)  # it has none
    before = json.loads(call(root + "Documents(1)")[2])
    change = json.dumps({"set": "Documents", "key": 1, "content": "quiet", "type": "text/plain"}).encode()
    assert call(media_v4.origin + "/_media_quiet_change", "POST", change)[0] == 204
    after = json.loads(call(root + "Documents(1)")[2])
    assert after["@odata.etag"] == before["@odata.etag"] and after["@odata.mediaEtag"] == etag_for(b"quiet")
    assert call(root + "Documents(1)/$value")[2] == b"quiet"
    change = json.dumps({"set": "Inspections", "key": 2, "property": "signature", "content": "sig"}).encode()
    assert call(media_v4.origin + "/_media_quiet_change", "POST", change)[0] == 204
    assert json.loads(call(root + "Inspections(2)")[2])["signature@odata.mediaEtag"] == etag_for(b"sig")
    missing = json.dumps({"set": "Documents", "key": 99, "content": "x"}).encode()
    assert call(media_v4.origin + "/_media_quiet_change", "POST", missing)[0] == 404

    root = media_v2.service_root
    first = json.loads(call(root + "Documents('000002')?$format=json")[2])["d"]["__metadata"]
    change = json.dumps({"set": "Documents", "key": "000002", "content": "quiet v2"}).encode()
    assert call(media_v2.origin + "/_media_quiet_change", "POST", change)[0] == 204
    second = json.loads(call(root + "Documents('000002')?$format=json")[2])["d"]["__metadata"]
    assert second["etag"] == first["etag"] and second["media_etag"] == etag_for(b"quiet v2")
