"""Local changes uploaded to the real test backends, checked on the service."""
import json
import urllib.error
import urllib.parse

from conftest import get_json, status

AGENCY = '{"agencynum":"99000001","name":"Offline Travel","city":"Rome","country":"IT","currency":"EUR"}'


def agency_on_service(server, key, v2=False):
    url = server.service_root + f"TravelagencyCollection('{key}')"
    if v2:
        url += "?$format=json"
    try:
        data = get_json(url)
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise
    return data["d"] if v2 else data


def test_a_create_offline_reaches_the_v4_service(tool, make_store, v4):
    store = make_store(v4, "v4")
    created = tool("request", store, "--method", "POST", "TravelagencyCollection", "--body", AGENCY)
    assert created.returncode == 0, created.stderr
    assert status(tool, store)["queue"][0]["method"] == "POST"
    assert agency_on_service(v4, "99000001") is None

    uploaded = tool("upload", store)
    assert uploaded.returncode == 0, uploaded.stderr
    assert "1 sent, 0 moved" in uploaded.stdout
    on_service = agency_on_service(v4, "99000001")
    assert on_service["name"] == "Offline Travel" and on_service["city"] == "Rome"
    assert status(tool, store)["queue"] == []


def test_a_create_offline_reaches_the_v2_service_through_csrf(tool, make_store, v2):
    store = make_store(v2, "v2")
    assert tool("request", store, "--method", "POST", "TravelagencyCollection", "--body", AGENCY).returncode == 0
    uploaded = tool("upload", store)
    assert uploaded.returncode == 0, uploaded.stderr
    on_service = agency_on_service(v2, "99000001", v2=True)
    assert on_service["name"] == "Offline Travel"


def test_a_refused_create_goes_to_the_error_archive(tool, make_store, v4):
    store = make_store(v4, "v4")
    existing = get_json(v4.service_root + "TravelagencyCollection?$top=1")["value"][0]["agencynum"]
    body = '{"agencynum":"%s","name":"Duplicate"}' % existing
    assert tool("request", store, "--method", "POST", "TravelagencyCollection", "--body", body).returncode == 0
    uploaded = tool("upload", store)
    assert uploaded.returncode == 3, uploaded.stderr  # worked through the queue, with a request archived
    assert "0 sent, 1 moved to the error archive" in uploaded.stdout
    archive = status(tool, store)["errorArchive"]
    assert len(archive) == 1 and 400 <= archive[0]["httpStatus"] < 500

    listed = json.loads(tool("archive", store, "--json").stdout)["errorArchive"]
    assert [entry["id"] for entry in listed] == [archive[0]["id"]]
    local = json.loads(tool("request", store, "TravelagencyCollection?$filter=sap.inerrorstate()").stdout)["value"]
    assert [entity["agencynum"] for entity in local] == [existing]
    deleted = tool("archive", store, "--delete", str(archive[0]["id"]))
    assert deleted.returncode == 0 and "discarded 1 request" in deleted.stdout
    assert status(tool, store)["errorArchive"] == []
    # Discarding the refused create removes the entity it made from the store: nothing local is left.
    assert json.loads(tool("request", store, "TravelagencyCollection").stdout)["value"] == []
    again = tool("archive", store, "--delete", str(archive[0]["id"]))
    assert again.returncode == 1 and "no request" in again.stderr


def test_an_unreachable_service_keeps_the_queue(tool, make_store, v4):
    store = make_store(v4, "v4")
    assert tool("request", store, "--method", "POST", "TravelagencyCollection", "--body", AGENCY).returncode == 0
    uploaded = tool("upload", store, "--service", "http://127.0.0.1:9/")
    assert uploaded.returncode == 1
    assert "cannot connect" in uploaded.stderr
    assert len(status(tool, store)["queue"]) == 1
