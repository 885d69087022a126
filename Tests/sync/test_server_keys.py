"""An entity created offline without its key, on odatapy, which assigns keys itself
(`--autokey TravelagencyCollection`): the store makes up a provisional key, the create answers
with it, a later update uses it, and after the upload the service's key has replaced it in the
store, with nothing duplicated by the next download."""
import json

from conftest import get_json, status
from test_roundtrip import run_ok, store_rows


def test_a_provisional_key_gives_way_to_the_services_key(tool, make_store, v4):
    store = make_store(v4, "v4", ("Agencies", "TravelagencyCollection?$filter=country eq 'NO'"))
    run_ok(tool, "download", store)
    before, _ = store_rows(store, "TravelagencyCollection", ["agencynum", "name"])

    created = json.loads(run_ok(tool, "request", store, "--method", "POST", "TravelagencyCollection", "--body",
                                json.dumps({"name": "Keyless Travel", "city": "Tromsø", "country": "NO"})))
    provisional = created["agencynum"]
    assert provisional == "~1"
    assert created["@com.sap.vocabularies.Offline.v1.isLocal"] is True
    run_ok(tool, "request", store, "--method", "PATCH", f"TravelagencyCollection('{provisional}')", "--body",
           json.dumps({"city": "Bodø"}))
    local = json.loads(run_ok(tool, "request", store, "TravelagencyCollection?$filter=sap.islocal()"))["value"]
    assert [(e["agencynum"], e["city"]) for e in local] == [("~1", "Bodø")]
    assert [q["method"] for q in status(tool, store)["queue"]] == ["POST", "PATCH"]

    # As queued (--no-compact): the PATCH follows the create to the key the service gives it.
    uploaded = run_ok(tool, "upload", store, "--no-compact")
    assert "2 sent, 0 moved" in uploaded, uploaded + json.dumps(status(tool, store)["errorArchive"])
    on_service = get_json(v4.service_root + "TravelagencyCollection?$filter=name%20eq%20'Keyless%20Travel'")["value"]
    assert len(on_service) == 1
    served_key = on_service[0]["agencynum"]
    assert served_key != provisional and not served_key.startswith("~")
    assert on_service[0]["city"] == "Bodø"

    in_store, pending = store_rows(store, "TravelagencyCollection", ["agencynum", "name", "city"])
    assert pending == 0
    assert provisional not in in_store
    assert in_store[served_key] == ("Keyless Travel", "Bodø")
    run_ok(tool, "download", store, "--full")
    after, _ = store_rows(store, "TravelagencyCollection", ["agencynum", "name"])
    assert len(after) == len(before) + 1
    assert after[served_key] == ("Keyless Travel",)
