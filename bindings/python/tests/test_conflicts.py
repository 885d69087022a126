"""Conflict policies from Python (issue 37): ``offline_odata.conflicts`` over the C functions,
against the real V4 service; another writer changes an agency between download and upload."""
import pytest

from offline_odata import MisuseError, Mode, NotFoundError, SemanticError, Store, conflicts
from conftest import US_AGENCIES

ANY = {"If-Match": "*"}


def scene(v4, tmp_path, name):
    store = Store.open(tmp_path / name, service_root=v4.service_root, defining_requests={"Agencies": US_AGENCIES})
    url = f"TravelagencyCollection('{store.get(US_AGENCIES + '&$orderby=agencynum&$top=1')[0]['agencynum']}')"
    return store, url


def test_policies_are_kept_in_the_store(v4, tmp_path):
    store, _ = scene(v4, tmp_path, "policies.store")
    with store:
        assert conflicts.policies(store) == {"default": "archive", "entitySets": {}}
        conflicts.set_policy(store, "serverWins")
        conflicts.set_policy(store, "mergeChangedFields", entity_set="TravelagencyCollection")
        assert conflicts.policies(store) == {"default": "serverWins",
                                             "entitySets": {"TravelagencyCollection": "mergeChangedFields"}}


def test_a_python_resolver_sees_three_versions_and_answers_a_merged_body(v4, tmp_path):
    store, url = scene(v4, tmp_path, "resolver.store")
    with store, Store(service_root=v4.service_root, mode=Mode.ONLINE) as online:
        original = store.get(url)["name"]
        store.update(url, {"name": "Py Local"})
        online.update(url, {"name": "Py Service", "city": "Py City"}, headers=ANY)
        seen = []

        def resolve(versions):
            seen.append(versions)
            return {"name": "Py Merged"}

        outcome = conflicts.upload(store, resolver=resolve)
        assert outcome["sent"] == 1 and outcome["archived"] == 0
        assert len(seen) == 1
        assert seen[0]["original"]["name"] == original
        assert seen[0]["local"] == {"name": "Py Local"}
        assert seen[0]["served"]["name"] == "Py Service" and seen[0]["served"]["city"] == "Py City"
        assert {p["name"]: p["changedBy"] for p in seen[0]["properties"]}["name"] == "both"
        assert online.get(url)["name"] == "Py Merged" and store.get(url)["city"] == "Py City"


def test_server_wins_records_what_it_dropped_and_a_raising_resolver_archives(v4, tmp_path):
    store, url = scene(v4, tmp_path, "dropped.store")
    with store, Store(service_root=v4.service_root, mode=Mode.ONLINE) as online:
        store.update(url, {"name": "Py Dropped"})
        online.update(url, {"name": "Py Kept"}, headers=ANY)
        assert conflicts.upload(store, policy="serverWins")["discarded"] == 1
        assert store.get(url)["name"] == "Py Kept"
        dropped = conflicts.discarded_changes(store)
        assert [change["local"] for change in dropped] == [{"name": "Py Dropped"}]
        assert conflicts.clear_discarded_changes(store) == 1 and conflicts.discarded_changes(store) == []

        store.update(url, {"name": "Py Again"})
        online.update(url, {"name": "Py Other"}, headers=ANY)

        def broken(versions):
            raise RuntimeError("no decision")

        assert conflicts.upload(store, policy="clientWins", resolver=broken)["archived"] == 1
        archived = store.error_archive()
        assert len(archived) == 1 and archived[0]["kind"] == "conflict"
        assert archived[0]["conflict"]["policy"] == "callback"
        assert archived[0]["conflict"]["served"]["name"] == "Py Other"


def test_alternate_keys_are_declared_checked_and_forgotten(v4, tmp_path):
    store, _ = scene(v4, tmp_path, "alternate.store")
    with store:
        assert conflicts.alternate_keys(store) == {}
        conflicts.set_alternate_key(store, "TravelagencyCollection", ["name", "country"])
        assert conflicts.alternate_keys(store) == {"TravelagencyCollection": [["name", "country"]]}
        with pytest.raises(NotFoundError):
            conflicts.set_alternate_key(store, "NoSuchSet", ["name"])
        with pytest.raises(SemanticError):
            conflicts.set_alternate_key(store, "TravelagencyCollection", ["nosuch"])
        with pytest.raises(MisuseError):
            conflicts.set_alternate_key(store, "TravelagencyCollection", ["name", ""])
        assert conflicts.alternate_keys(store) == {"TravelagencyCollection": [["name", "country"]]}
        conflicts.set_alternate_key(store, "TravelagencyCollection", [])
        assert conflicts.alternate_keys(store) == {}
