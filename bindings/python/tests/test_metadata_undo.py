"""``Store.metadata()`` (the model summary) and ``Store.undo(url)`` (reverting one entity's local changes)."""
import pytest

from offline_odata import Mode, NotFoundError, QuerySyntaxError, SemanticError, Store, UndoResult
from conftest import US_AGENCIES


def open_mixed(backend, tmp_path, **options):
    return Store.open(tmp_path / f"{backend.kind}.store", service_root=backend.service_root,
                      defining_requests={"Agencies": US_AGENCIES}, **options)


def test_metadata_names_the_entity_sets_their_keys_and_the_function_imports(backend, tmp_path):
    with open_mixed(backend, tmp_path) as store:
        model = store.metadata()
    sets = {entity_set["name"]: entity_set for entity_set in model["entitySets"]}
    agencies = sets["TravelagencyCollection"]
    assert agencies["key"] == ["agencynum"]
    properties = {p["name"]: p for p in agencies["properties"]}
    assert {"agencynum", "name", "city", "country"} <= set(properties)
    assert properties["agencynum"]["nullable"] is False
    assert "CarrierCollection" in sets
    functions = {f["name"]: f for f in model["functionImports"]}
    assert [p["name"] for p in functions["GetAgencyDetails"]["parameters"]] == ["agencynum"]
    assert str(model["version"]).startswith("4" if backend.kind == "v4" else ("1", "2"))
    assert isinstance(model["namespaces"], list) and model["namespaces"]


def test_an_online_store_has_the_model_too(v4):
    with Store(service_root=v4.service_root, mode=Mode.ONLINE) as store:
        assert "TravelagencyCollection" in [s["name"] for s in store.metadata()["entitySets"]]


def test_undo_of_an_offline_create_removes_it_and_empties_the_queue(backend, tmp_path):
    with open_mixed(backend, tmp_path) as store:
        count = store.get("TravelagencyCollection/$count")
        store.create("TravelagencyCollection", {"agencynum": "99000021", "name": "Undone", "country": "US"})
        assert len(store.request_queue()) == 1
        undone = store.undo("TravelagencyCollection('99000021')")
        assert isinstance(undone, UndoResult)
        assert undone == UndoResult("TravelagencyCollection", "removed", 1)
        assert undone.action == "removed" and undone.dropped_requests == 1
        assert store.request_queue() == []
        with pytest.raises(NotFoundError):
            store.get("TravelagencyCollection('99000021')")
        assert store.get("TravelagencyCollection/$count") == count
        assert store.upload() == (0, 0)


def test_undo_of_an_offline_update_restores_the_downloaded_value(backend, tmp_path):
    with open_mixed(backend, tmp_path) as store:
        agency = store.get(US_AGENCIES + "&$orderby=agencynum&$top=1")[0]
        url = f"TravelagencyCollection('{agency['agencynum']}')"
        method = "PATCH" if backend.kind == "v4" else "MERGE"
        store.update(url, {"city": "Undo City"}, method=method)
        store.update(url, {"name": "Undo Name"}, method=method)
        assert store.get(url)["city"] == "Undo City"
        undone = store.undo(url)
        assert undone.action == "restored" and undone.dropped_requests == 2
        back = store.get(url)
        assert back["city"] == agency["city"] and back["name"] == agency["name"]
        assert store.request_queue() == []
        # Nothing left to undo.
        assert store.undo(url) == UndoResult("TravelagencyCollection", "nothing", 0)


def test_undo_of_an_offline_delete_brings_the_entity_back(v4, tmp_path):
    with open_mixed(v4, tmp_path) as store:
        agency = store.get(US_AGENCIES + "&$orderby=agencynum&$top=1")[0]
        url = f"TravelagencyCollection('{agency['agencynum']}')"
        store.delete(url)
        with pytest.raises(NotFoundError):
            store.get(url)
        assert store.undo(url).action == "restored"
        assert store.get(url)["name"] == agency["name"]


def test_undo_drops_an_archived_request_too(v4, tmp_path):
    with open_mixed(v4, tmp_path) as store:
        with Store(service_root=v4.service_root, mode=Mode.ONLINE) as online:
            taken = online.get("TravelagencyCollection?$filter=country ne 'US'&$top=1")[0]["agencynum"]
        store.create("TravelagencyCollection", {"agencynum": taken, "name": "Clash", "country": "US"})
        assert store.upload() == (0, 1)
        assert len(store.error_archive()) == 1
        undone = store.undo(f"TravelagencyCollection('{taken}')")
        assert undone.action == "removed" and undone.dropped_requests == 1
        assert store.error_archive() == []


def test_undo_of_an_unknown_key_is_not_found_and_of_a_collection_is_refused(backend, tmp_path):
    with open_mixed(backend, tmp_path) as store:
        with pytest.raises(NotFoundError):
            store.undo("TravelagencyCollection('00999999')")
        with pytest.raises((SemanticError, QuerySyntaxError)):
            store.undo("TravelagencyCollection")
        with pytest.raises(SemanticError):
            store.undo("NoSuchCollection('1')")
        with pytest.raises(TypeError):
            store.undo(7)
