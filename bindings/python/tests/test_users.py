"""A device that changes hands (docs/SHARED-DEVICE.md, issue 37 point 5) through the binding,
against the real V4 and V2 test services behind a recording proxy: alice works offline, the app
hands the store to bob with each choice, and the proxy shows which credentials every request
carried; bob never reads alice's entities."""
import base64
import json
import os

import pytest

from conftest import US_AGENCIES, recording_proxy
from offline_odata import Mode, Options, OtherUserError, Store, MisuseError
from offline_odata import conflicts, users

SET = "TravelagencyCollection"
ALICE = ("alice", "a-secret")
BOB = ("bob", "b-secret")
ALICE_AGENCY = "99000002"
ALICE_NAME = "Renamed by alice (Python)"


def basic(user):
    return "Basic " + base64.b64encode(f"{user[0]}:{user[1]}".encode()).decode()


def open_for(path, proxy, user, **extra):
    return Store.open(path, service_root=proxy.root, defining_requests={"Agencies": US_AGENCIES}, mode=Mode.OFFLINE,
                      user=user[0], basic_auth=user, **extra)


def alice_works_offline(path, proxy, backend):
    with open_for(path, proxy, ALICE) as store:
        key = store.entities(f"{SET}?$orderby=agencynum&$top=1")[0]["agencynum"]
        store.create(SET, {"agencynum": ALICE_AGENCY, "name": "Alice's", "city": "Boston", "country": "US"})
        store.update(f"{SET}('{key}')", {"name": ALICE_NAME}, method="PATCH" if backend.kind == "v4" else "MERGE")
        assert len(store.request_queue()) == 2
    return key


def only(user, seen):
    assert seen, "no request reached the service"
    assert {request.authorization for request in seen} == {basic(user)}, [(r.method, r.path) for r in seen]


def served(backend, key):
    def get(url):
        import urllib.request, urllib.error
        request = urllib.request.Request(backend.service_root + url, headers={"Accept": "application/json"})
        try:
            with urllib.request.urlopen(request) as answer:
                document = json.loads(answer.read())
                return document.get("d", document)
        except urllib.error.HTTPError:
            return None
    renamed = get(f"{SET}('{key}')")
    return renamed and renamed.get("name"), get(f"{SET}('{ALICE_AGENCY}')") is not None


def bob_reads(path, proxy, key):
    """Bob's store, downloaded with his credentials only: the agencies he reads."""
    mark = len(proxy.requests)
    with open_for(path, proxy, BOB) as store:
        assert store.request_queue() == [] and store.error_archive() == []
        agencies = {entity["agencynum"]: entity["name"] for entity in store.entities(SET)}
    only(BOB, proxy.requests[mark:])
    return agencies


@pytest.fixture
def proxied(backend):
    proxy = recording_proxy.RecordingProxy(backend.service_root)
    yield backend, proxy
    proxy.stop()


def test_another_user_is_refused(proxied, tmp_path):
    backend, proxy = proxied
    path = tmp_path / "shared.store"
    alice_works_offline(path, proxy, backend)
    mark = len(proxy.requests)
    with pytest.raises(OtherUserError, match="'alice'"):
        open_for(path, proxy, BOB)
    with pytest.raises(OtherUserError):
        Store.open(path, service_root=proxy.root, mode=Mode.OFFLINE)
    assert proxy.requests[mark:] == []
    assert users.store_user(path) == "alice"


def test_upload_first_uses_alices_credentials_for_her_changes_only(proxied, tmp_path):
    backend, proxy = proxied
    path = tmp_path / "shared.store"
    key = alice_works_offline(path, proxy, backend)
    mark = len(proxy.requests)
    outcome = users.hand_over(path, "bob", "upload-first", previous=Options(basic_auth=ALICE))
    assert outcome == {"previousUser": "alice", "newUser": "bob", "uploaded": 2, "discarded": 0, "keptAt": None}
    sent = proxy.requests[mark:]
    assert {"POST"} <= {request.method for request in sent}
    only(ALICE, sent)
    assert served(backend, key) == (ALICE_NAME, True)
    assert users.store_user(path) == "bob"
    agencies = bob_reads(path, proxy, key)
    assert agencies[ALICE_AGENCY] == "Alice's" and agencies[key] == ALICE_NAME  # now the service's data


def test_discard_keeps_a_record_and_sends_nothing(proxied, tmp_path):
    backend, proxy = proxied
    path = tmp_path / "shared.store"
    key = alice_works_offline(path, proxy, backend)
    mark = len(proxy.requests)
    outcome = users.hand_over(path, "bob", "discard")
    assert outcome["discarded"] == 2 and outcome["uploaded"] == 0
    assert proxy.requests[mark:] == []
    agencies = bob_reads(path, proxy, key)
    assert ALICE_AGENCY not in agencies and agencies[key] != ALICE_NAME
    assert served(backend, key)[1] is False
    with open_for(path, proxy, BOB) as store:
        record = conflicts.discarded_changes(store)
        assert [change["policy"] for change in record] == ["handOver:alice"] * 2
        assert [change["method"] for change in record] == ["POST", "PATCH" if backend.kind == "v4" else "MERGE"]
        assert conflicts.clear_discarded_changes(store) == 2


def test_keep_apart_leaves_alices_store_whole(proxied, tmp_path):
    backend, proxy = proxied
    path = tmp_path / "shared.store"
    key = alice_works_offline(path, proxy, backend)
    mark = len(proxy.requests)
    outcome = users.hand_over(path, "bob", "keep-apart", kept_path=tmp_path / "alice.store")
    assert outcome["keptAt"] == str(tmp_path / "alice.store")
    assert proxy.requests[mark:] == []
    agencies = bob_reads(path, proxy, key)
    assert ALICE_AGENCY not in agencies and agencies[key] != ALICE_NAME
    with pytest.raises(OtherUserError):
        open_for(tmp_path / "alice.store", proxy, BOB)
    with open_for(tmp_path / "alice.store", proxy, ALICE) as store:
        assert len(store.request_queue()) == 2
        mark = len(proxy.requests)
        assert store.upload() == (2, 0)
    only(ALICE, proxy.requests[mark:])
    assert served(backend, key) == (ALICE_NAME, True)


def test_bad_arguments(tmp_path, v4):
    with pytest.raises(ValueError):
        users.hand_over(tmp_path / "x.store", "bob", "give-away")
    proxy = recording_proxy.RecordingProxy(v4.service_root)
    try:
        path = tmp_path / "mine.store"
        open_for(path, proxy, ALICE).close()
        # To the holder with nothing pending: nothing to do (it finishes a hand-over killed before its rekey).
        assert users.hand_over(path, "alice", "discard")["discarded"] == 0
        with open_for(path, proxy, ALICE) as store:
            store.create(SET, {"agencynum": ALICE_AGENCY, "name": "Alice's", "country": "US"})
        with pytest.raises(MisuseError, match="already belongs"):
            users.hand_over(path, "alice", "discard")
        with pytest.raises(MisuseError):
            users.hand_over(path, "", "discard")
    finally:
        proxy.stop()
