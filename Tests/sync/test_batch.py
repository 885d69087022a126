"""Uploads with `$batch` on the real backends (issue 6): change sets, an entity created offline and
changed in the same batch, a refused change set archived while the others go through."""
import json

from conftest import get_json, status
from test_roundtrip import run_ok, service_rows, store_rows

NEW = "99000001"
OTHER = "99000002"


def agency(key, name, city="Boston"):
    return json.dumps({"agencynum": key, "name": name, "city": city, "country": "US"})


def test_v4_batch_round_trip_with_an_entity_created_and_changed_offline(tool, make_store, v4):
    store = make_store(v4, "v4", ("Agencies", "TravelagencyCollection?$filter=country eq 'US'"),
                       ("Bookings", "BookingCollection"))
    run_ok(tool, "download", store)
    agencies, _ = store_rows(store, "TravelagencyCollection", ["agencynum", "name"])
    changed = sorted(agencies)[0]
    bookings, _ = store_rows(store, "BookingCollection", ["bookid", "carrid", "connid", "fldate"])
    deleted = sorted(bookings)[0]
    carrid, connid, fldate = bookings[deleted]

    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(NEW, "Offline Travel"))
    # Sent as `PATCH $1` in the POST's change set (the V4 backend resolves Content-ID references).
    run_ok(tool, "request", store, "--method", "PATCH", f"TravelagencyCollection('{NEW}')", "--body",
           json.dumps({"city": "Cambridge"}))
    run_ok(tool, "request", store, "--method", "PATCH", f"TravelagencyCollection('{changed}')", "--body",
           json.dumps({"city": "Offline City"}))
    run_ok(tool, "request", store, "--method", "DELETE",
           f"BookingCollection(carrid='{carrid}',connid='{connid}',fldate={fldate},bookid='{deleted}')")
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(OTHER, "Second"))

    # As queued (--no-compact): the PATCH of the new agency stays a request of its own, `PATCH $1`.
    uploaded = run_ok(tool, "upload", store, "--batch", "--batch-size", "3", "--no-compact")
    assert "5 sent, 0 moved" in uploaded, uploaded + json.dumps(status(tool, store)["errorArchive"])
    assert status(tool, store)["queue"] == []

    columns = ["agencynum", "name", "city", "country"]
    on_service = service_rows(v4, "TravelagencyCollection?$filter=country eq 'US'", columns)
    assert on_service[NEW] == ("Offline Travel", "Cambridge", "US")
    assert on_service[OTHER][0] == "Second"
    assert on_service[changed][1] == "Offline City"
    in_store, pending = store_rows(store, "TravelagencyCollection", ["agencynum", "_ood_etag"])
    assert pending == 0
    # The entities took the ETags of the batch's answers: a download changes nothing and a
    # second update of the created entity passes the service's If-Match check.
    assert in_store[NEW][0]
    run_ok(tool, "request", store, "--method", "PATCH", f"TravelagencyCollection('{NEW}')", "--body",
           json.dumps({"city": "Salem"}))
    assert "1 sent, 0 moved" in run_ok(tool, "upload", store, "--batch")
    assert service_rows(v4, "TravelagencyCollection?$filter=country eq 'US'", columns)[NEW][1] == "Salem"
    booking_filter = f"BookingCollection?$filter=carrid eq '{carrid}' and connid eq '{connid}' and fldate eq {fldate}"
    assert deleted not in service_rows(v4, booking_filter, ["bookid", "agencynum"])


def test_v4_a_refused_change_set_is_archived_and_the_others_go_through(tool, make_store, v4):
    store = make_store(v4, "v4")
    existing = get_json(v4.service_root + "TravelagencyCollection?$top=1")["value"][0]["agencynum"]
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(NEW, "First"))
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body",
           json.dumps({"agencynum": existing, "name": "Duplicate"}))
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(OTHER, "Third"))

    uploaded = run_ok(tool, "upload", store, "--batch", code=3)
    assert "2 sent, 1 moved to the error archive" in uploaded
    archive = status(tool, store)["errorArchive"]
    assert len(archive) == 1 and 400 <= archive[0]["httpStatus"] < 500
    assert archive[0]["id"] == 2 and "answered" in archive[0]["message"]
    on_service = service_rows(v4, "TravelagencyCollection?$filter=country eq 'US'", ["agencynum", "name"])
    assert on_service[NEW] == ("First",) and on_service[OTHER] == ("Third",)


def test_v4_a_transaction_is_applied_or_refused_whole(tool, make_store, v4):
    store = make_store(v4, "v4")
    existing = get_json(v4.service_root + "TravelagencyCollection?$top=1")["value"][0]["agencynum"]
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(NEW, "Rolled back"),
           "--transaction-id", "t1")
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body",
           json.dumps({"agencynum": existing, "name": "Duplicate"}), "--transaction-id", "t1")
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(OTHER, "Alone"),
           "--transaction-id", "t2")

    uploaded = run_ok(tool, "upload", store, "--batch", "--group-by-transaction", code=3)
    assert "1 sent, 2 moved to the error archive" in uploaded
    archive = status(tool, store)["errorArchive"]
    assert len(archive) == 2 and all(400 <= entry["httpStatus"] < 500 for entry in archive)
    on_service = service_rows(v4, "TravelagencyCollection?$filter=country eq 'US'", ["agencynum", "name"])
    assert NEW not in on_service and on_service[OTHER] == ("Alone",)


def test_v2_batch_answered_202_without_content_id_references(tool, make_store, v2):
    store = make_store(v2, "v2", ("Agencies", "TravelagencyCollection?$filter=country eq 'US'"))
    run_ok(tool, "download", store)
    agencies, _ = store_rows(store, "TravelagencyCollection", ["agencynum", "name"])
    changed = sorted(agencies)[0]
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(NEW, "Offline Travel"))
    # The V2 backend fails `$1` references: the engine addresses the new entity by its key, in
    # the POST's change set.
    run_ok(tool, "request", store, "--method", "MERGE", f"TravelagencyCollection('{NEW}')", "--body",
           json.dumps({"city": "Cambridge"}))
    run_ok(tool, "request", store, "--method", "MERGE", f"TravelagencyCollection('{changed}')", "--body",
           json.dumps({"city": "Offline City"}))

    # As queued (--no-compact): the MERGE of the new agency stays a request of its own.
    uploaded = run_ok(tool, "upload", store, "--batch", "--no-compact")
    assert "3 sent, 0 moved" in uploaded, uploaded + json.dumps(status(tool, store)["errorArchive"])
    columns = ["agencynum", "name", "city"]
    on_service = service_rows(v2, "TravelagencyCollection?$filter=country eq 'US'", columns, v2=True)
    assert on_service[NEW] == ("Offline Travel", "Cambridge")
    assert on_service[changed][1] == "Offline City"
    assert status(tool, store)["queue"] == []
    _, pending = store_rows(store, "TravelagencyCollection", columns)
    assert pending == 0


def test_v2_a_refused_change_set_is_archived_and_the_others_go_through(tool, make_store, v2):
    store = make_store(v2, "v2")
    existing = get_json(v2.service_root + "TravelagencyCollection?$top=1&$format=json")["d"]["results"][0]["agencynum"]
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body",
           json.dumps({"agencynum": existing, "name": "Duplicate"}))
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(NEW, "After"))

    uploaded = run_ok(tool, "upload", store, "--batch", code=3)
    assert "1 sent, 1 moved to the error archive" in uploaded, uploaded
    archive = status(tool, store)["errorArchive"]
    assert len(archive) == 1 and 400 <= archive[0]["httpStatus"] < 500
    on_service = service_rows(v2, "TravelagencyCollection?$filter=agencynum eq '" + NEW + "'", ["agencynum", "name"], v2=True)
    assert on_service[NEW] == ("After",)


def test_an_unreachable_service_keeps_the_whole_batch_queued(tool, make_store, v4):
    store = make_store(v4, "v4")
    run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body", agency(NEW, "Kept"))
    uploaded = tool("upload", store, "--batch", "--service", "http://127.0.0.1:9/")
    assert uploaded.returncode == 1
    assert "stay queued" in uploaded.stderr
    assert len(status(tool, store)["queue"]) == 1
