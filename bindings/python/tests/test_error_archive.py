"""The error archive's actions: ``Store.requeue(id, body)`` and ``Store.discard(id)``, on creates the
V4 service refuses (a key it already has, outside the store's US agencies)."""
import pytest

from offline_odata import Mode, NotFoundError, SemanticError, Store
from conftest import US_AGENCIES


def open_mixed(backend, tmp_path):
    return Store.open(tmp_path / f"{backend.kind}.store", service_root=backend.service_root,
                      defining_requests={"Agencies": US_AGENCIES})


def taken_key(backend):
    with Store(service_root=backend.service_root, mode=Mode.ONLINE) as online:
        return online.get("TravelagencyCollection?$filter=country ne 'US'&$top=1")[0]["agencynum"]


def local_names(store):
    return [agency["name"] for agency in store.get(US_AGENCIES)]


def test_a_refused_create_is_corrected_and_sent_again(v4, tmp_path):
    taken = taken_key(v4)
    with open_mixed(v4, tmp_path) as store:
        store.create("TravelagencyCollection", {"agencynum": taken, "name": "Clash", "country": "US"})
        store.create("TravelagencyCollection", {"agencynum": "99000061", "name": "Later", "country": "US"})
        assert store.upload() == (1, 1)
        [entry] = store.error_archive()
        assert entry["kind"] == "conflict" and entry["method"] == "POST"  # 409: the key is taken
        store.create("TravelagencyCollection", {"agencynum": "99000062", "name": "After", "country": "US"})

        with pytest.raises(SemanticError):
            store.requeue(entry["id"], {"nosuch": 1})
        with pytest.raises(NotFoundError):
            store.requeue(entry["id"] + 1000)
        with pytest.raises(ValueError):
            store.requeue(-1)
        assert len(store.error_archive()) == 1

        assert store.requeue(entry["id"], {"agencynum": "99000060", "name": "Fixed", "country": "US"}) == 1
        assert store.error_archive() == []
        queue = store.request_queue()
        # Back at its place: before the create queued after it was archived.
        assert [request["id"] for request in queue] == sorted(request["id"] for request in queue)
        assert queue[0]["id"] == entry["id"] and "99000060" in queue[0]["body"]
        assert all(request["state"] == "pending" for request in queue)
        assert "Fixed" in local_names(store) and "Clash" not in local_names(store)

        assert store.upload() == (2, 0)
    with Store(service_root=v4.service_root, mode=Mode.ONLINE) as online:
        assert online.get("TravelagencyCollection('99000060')")["name"] == "Fixed"


def test_discarding_a_refused_create_removes_the_entity(v4, tmp_path):
    taken = taken_key(v4)
    with open_mixed(v4, tmp_path) as store:
        store.create("TravelagencyCollection", {"agencynum": taken, "name": "Clash", "country": "US"})
        assert store.upload() == (0, 1)
        # A change made after the refusal builds on it: it goes too.
        store.update(f"TravelagencyCollection('{taken}')", {"city": "Rome"})
        [entry] = store.error_archive()
        assert "Clash" in local_names(store)

        assert store.discard(entry["id"]) == 2
        assert store.error_archive() == [] and store.request_queue() == []
        assert "Clash" not in local_names(store)
        with pytest.raises(NotFoundError):
            store.discard(entry["id"])
        # The former name still works; nothing is left.
        assert store.delete_archived(all=True) == 0
