"""`offline-odata archive STORE --redownload URL`: one entity read from the V4 service again (issue 19)."""
import json
import sqlite3

from conftest import get_json, send, status

AGENCIES = ("Agencies", "TravelagencyCollection?$filter=country eq 'US'")


def row(store, key: str):
    connection = sqlite3.connect(store)
    try:
        return connection.execute('SELECT name, "_ood_etag", "_ood_change", "_ood_error" FROM "es/TravelagencyCollection" '
                                  'WHERE agencynum = ?', (key,)).fetchone()
    finally:
        connection.close()


def downloaded_store(tool, make_store, v4):
    store = make_store(v4, "v4", AGENCIES)
    downloaded = tool("download", store)
    assert downloaded.returncode == 0, downloaded.stderr
    key = get_json(v4.service_root + "TravelagencyCollection?$filter=country eq 'US'&$orderby=agencynum&$top=1"
                   .replace(" ", "%20"))["value"][0]["agencynum"]
    return store, key


def test_an_entity_changed_on_the_service_is_redownloaded(tool, make_store, v4):
    store, key = downloaded_store(tool, make_store, v4)
    url = f"TravelagencyCollection('{key}')"
    send(v4.service_root + url, "PATCH", {"name": "Changed Online"})
    served = get_json(v4.service_root + url)

    result = tool("archive", store, "--redownload", url)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"redownloaded {url}: updated"
    assert row(store, key) == ("Changed Online", served["@odata.etag"], None, 0)

    # --json prints the outcome; the service options go with --redownload.
    as_json = tool("archive", store, "--redownload", url, "--json", "--service", v4.service_root, "--timeout", "30")
    assert as_json.returncode == 0, as_json.stderr
    assert json.loads(as_json.stdout) == {"entitySet": "TravelagencyCollection", "action": "updated"}


def test_an_entity_with_a_queued_change_is_refused_and_keeps_it(tool, make_store, v4):
    store, key = downloaded_store(tool, make_store, v4)
    url = f"TravelagencyCollection('{key}')"
    changed = tool("request", store, "--method", "PATCH", url, "--body", '{"name":"Changed Offline"}')
    assert changed.returncode == 0, changed.stderr
    send(v4.service_root + url, "PATCH", {"name": "Changed Online"})

    refused = tool("archive", store, "--redownload", url)
    assert refused.returncode == 1
    assert "has queued or archived requests: upload, discard or undo them first" in refused.stderr
    assert row(store, key)[0] == "Changed Offline" and row(store, key)[2] == "updated"
    assert len(status(tool, store)["queue"]) == 1


def test_an_entity_deleted_on_the_service_leaves_the_store(tool, make_store, v4):
    store, _ = downloaded_store(tool, make_store, v4)
    url = "TravelagencyCollection('99000061')"
    created = tool("request", store, "--method", "POST", "TravelagencyCollection",
                   "--body", '{"agencynum":"99000061","name":"Short-lived","country":"US"}')
    assert created.returncode == 0, created.stderr
    assert tool("upload", store).returncode == 0
    send(v4.service_root + url, "DELETE")

    result = tool("archive", store, "--redownload", url, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"entitySet": "TravelagencyCollection", "action": "removed"}
    assert row(store, "99000061") is None


def test_a_url_that_is_not_one_entity_is_refused_and_service_options_need_redownload(tool, make_store, v4):
    store, key = downloaded_store(tool, make_store, v4)
    collection = tool("archive", store, "--redownload", "TravelagencyCollection")
    assert collection.returncode == 1 and "one entity by its key" in collection.stderr
    unknown = tool("archive", store, "--redownload", "TravelagencyCollection('00999999')")
    assert unknown.returncode == 1 and "no entity with this key" in unknown.stderr
    both = tool("archive", store, "--redownload", f"TravelagencyCollection('{key}')", "--delete-all")
    assert both.returncode == 64
    stray = tool("archive", store, "--service", v4.service_root)
    assert stray.returncode == 64 and "go with --redownload" in stray.stderr
