"""Creates in doubt settled by an alternate key (issue 37, point 4).

A create whose key the service assigns (odatapy's `--autokey TravelagencyCollection`), sent without
repeatable requests, whose answer was lost, is read back by an alternate key: the one the app
declares (`store config --alternate-key TravelagencyCollection=name`) or the one the model declares
(`Core.AlternateKeys`, odatapy's `--alternate-key`). Found with the values sent: applied, its key
taken, not sent again; not found: sent again; two found: left for a decision. The fault proxy
drops the answer of an applied POST (`drop`) or keeps the POST from the service (`hang`); what the
service holds is read from the backend directly.
"""
from __future__ import annotations

import json
import urllib.request

import pytest

import backends
from conftest import status
from test_faults import agency, offline, store_row
from test_upload_exactly_once import agencies_named, queue_of, synced_store, upload

KEYLESS = '{"name":"Found By Name","city":"Oslo","country":"NO"}'


def create_on_service(server, entity: dict) -> None:
    """Someone else's create, on the service directly."""
    request = urllib.request.Request(server.service_root + "TravelagencyCollection", data=json.dumps(entity).encode(),
                                     method="POST", headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status == 201


def declare_name_key(tool, store) -> None:
    declared = tool("store", "config", store, "--alternate-key", "TravelagencyCollection=name", "--json")
    assert declared.returncode == 0, declared.stderr
    assert json.loads(declared.stdout)["alternateKeys"] == {"TravelagencyCollection": [["name"]]}


@pytest.mark.parametrize("batch", [False, True], ids=["single", "batch"])
def test_a_keyless_create_applied_whose_answer_was_lost_is_found_by_its_alternate_key(batch, tool, make_store, v4,
                                                                                       fault_proxy):
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    declare_name_key(tool, store)
    offline(tool, store, "POST", "TravelagencyCollection", KEYLESS)
    offline(tool, store, "PATCH", "TravelagencyCollection('~1')", '{"city":"Bergen"}')
    proxy.add("drop", method="POST")
    options = ["--batch", "--batch-size", "1"] if batch else []

    assert upload(tool, store, *options)[0] == 1
    assert queue_of(tool, store) == [("POST", "inDoubt"), ("PATCH", "pending")]
    served = agencies_named(v4, "Found By Name")
    assert len(served) == 1  # applied, answer lost

    code, document, stderr = upload(tool, store, *options)
    assert code == 0, stderr
    assert document == {"sent": 2, "archived": 0, "inDoubt": 0, "queued": 0}
    posts = [entry for entry in proxy.log() if entry["method"] == "POST" and "$batch" not in entry["target"]]
    assert len(posts) == (0 if batch else 1)  # not sent again
    reads = [entry["target"] for entry in proxy.log() if entry["method"] == "GET" and "$filter=name" in entry["target"]]
    assert len(reads) == 1, proxy.log()
    after = agencies_named(v4, "Found By Name")
    assert [entity["agencynum"] for entity in after] == [served[0]["agencynum"]]
    assert after[0]["city"] == "Bergen"  # the update followed to the service's key
    row = store_row(store, "TravelagencyCollection", "name = ?", "Found By Name")
    assert row["agencynum"] == served[0]["agencynum"] and row["_ood_change"] is None
    assert status(tool, store)["errorArchive"] == []


def test_a_keyless_create_that_never_reached_the_service_is_sent_again(tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    declare_name_key(tool, store)
    offline(tool, store, "POST", "TravelagencyCollection", KEYLESS)
    proxy.add("hang", method="POST", seconds=10)  # never forwarded
    failed = tool("upload", store, "--timeout", "2")
    assert failed.returncode == 1, failed.stderr
    assert queue_of(tool, store) == [("POST", "inDoubt")]
    assert agencies_named(v4, "Found By Name") == []

    code, document, stderr = upload(tool, store)
    assert code == 0, stderr
    assert document == {"sent": 1, "archived": 0, "inDoubt": 0, "queued": 0}
    served = agencies_named(v4, "Found By Name")
    assert len(served) == 1
    assert store_row(store, "TravelagencyCollection", "name = ?", "Found By Name")["agencynum"] == served[0]["agencynum"]


def test_a_create_and_its_delete_in_doubt_together_are_not_sent_again(tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    declare_name_key(tool, store)
    offline(tool, store, "POST", "TravelagencyCollection", KEYLESS)
    offline(tool, store, "DELETE", "TravelagencyCollection('~1')")
    proxy.add("drop", method="POST")  # the $batch with both: applied, its answer lost
    options = ["--batch", "--batch-size", "2"]
    assert upload(tool, store, *options)[0] == 1
    assert queue_of(tool, store) == [("POST", "inDoubt"), ("DELETE", "inDoubt")]

    code, document, stderr = upload(tool, store, *options)
    assert code == 0, stderr
    # Nothing has the name: both were applied, as a 404 after a delete says on a read by key.
    assert document == {"sent": 2, "archived": 0, "inDoubt": 0, "queued": 0}
    assert len([entry for entry in proxy.log() if entry["method"] == "POST"]) == 1  # the first $batch only
    assert agencies_named(v4, "Found By Name") == []


def test_two_entities_with_the_alternate_key_leave_the_create_for_a_decision(tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    declare_name_key(tool, store)
    offline(tool, store, "POST", "TravelagencyCollection", KEYLESS)
    proxy.add("drop", method="POST")
    assert upload(tool, store)[0] == 1
    create_on_service(v4, {"name": "Found By Name", "city": "Rome", "country": "IT"})

    code, document, stderr = upload(tool, store)
    assert code == 3, stderr
    assert document == {"sent": 0, "archived": 1, "inDoubt": 1, "queued": 0}
    archive = status(tool, store)["errorArchive"]
    assert [(entry["method"], entry["kind"]) for entry in archive] == [("POST", "inDoubt")]
    assert "more than one entity" in archive[0]["message"]
    assert len(agencies_named(v4, "Found By Name")) == 2  # the create was not sent a third time


def test_a_create_without_the_alternate_key_value_still_needs_a_decision(tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = synced_store(tool, make_store, proxy)
    declared = tool("store", "config", store, "--alternate-key", "TravelagencyCollection=url", "--json")
    assert declared.returncode == 0, declared.stderr
    offline(tool, store, "POST", "TravelagencyCollection", KEYLESS)  # sends no url
    proxy.add("drop", method="POST")
    assert upload(tool, store)[0] == 1
    code, _, stderr = upload(tool, store)
    assert code == 3, stderr
    archive = status(tool, store)["errorArchive"]
    assert [(entry["method"], entry["kind"]) for entry in archive] == [("POST", "inDoubt")]
    assert "alternate key url" in archive[0]["message"]
    assert len(agencies_named(v4, "Found By Name")) == 1


def test_the_alternate_key_declaration_is_checked_and_can_be_forgotten(tool, make_store, v4):
    store = make_store(v4, "v4", ("Agencies", "TravelagencyCollection"))
    unknown = tool("store", "config", store, "--alternate-key", "NoSuchSet=name")
    assert unknown.returncode == 1 and "NoSuchSet" in unknown.stderr
    wrong = tool("store", "config", store, "--alternate-key", "TravelagencyCollection=nosuch")
    assert wrong.returncode == 1 and "nosuch" in wrong.stderr
    declare_name_key(tool, store)
    shown = tool("store", "config", store)
    assert "alternate key TravelagencyCollection: name" in shown.stdout
    forgotten = tool("store", "config", store, "--alternate-key", "TravelagencyCollection=", "--json")
    assert json.loads(forgotten.stdout)["alternateKeys"] == {}


@pytest.fixture(scope="module")
def v4_named_server():
    """odatapy whose $metadata declares `name` an alternate key of TravelagencyCollection."""
    server = backends.start_v4(page_size=25, data="small", alternate_keys=("TravelagencyCollection=name",))
    yield server
    server.stop()


@pytest.fixture
def v4_named(v4_named_server):
    v4_named_server.reset()
    return v4_named_server


def store_with_service_model(tool, tmp_path, server, proxy):
    """A store made from the service's own $metadata (which declares the alternate key)."""
    metadata = tmp_path / "service-metadata.xml"
    with urllib.request.urlopen(server.service_root + "$metadata", timeout=30) as response:
        metadata.write_bytes(response.read())
    path = tmp_path / "named.store"
    created = tool("store", "create", path, "--metadata", metadata, "--service", proxy.service_root,
                   "--defining", "Agencies=TravelagencyCollection")
    assert created.returncode == 0, created.stderr
    assert tool("download", path).returncode == 0
    return path


def test_the_models_alternate_key_settles_a_create_in_doubt(tool, tmp_path, v4_named, fault_proxy):
    proxy = fault_proxy(v4_named)
    store = store_with_service_model(tool, tmp_path, v4_named, proxy)
    shown = tool("store", "config", store, "--json")
    assert json.loads(shown.stdout)["alternateKeys"] == {"TravelagencyCollection": [["name"]]}
    offline(tool, store, "POST", "TravelagencyCollection", KEYLESS)
    proxy.add("drop", method="POST")
    assert upload(tool, store)[0] == 1
    code, document, stderr = upload(tool, store)
    assert code == 0, stderr
    assert document == {"sent": 1, "archived": 0, "inDoubt": 0, "queued": 0}
    served = agencies_named(v4_named, "Found By Name")
    assert len(served) == 1
    assert agency(v4_named, served[0]["agencynum"])["city"] == "Oslo"
    assert store_row(store, "TravelagencyCollection", "name = ?", "Found By Name")["agencynum"] == served[0]["agencynum"]
