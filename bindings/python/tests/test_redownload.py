"""``Store.redownload(url)``: one entity read from the V4 service again (issue 19)."""
import pytest

from offline_odata import MisuseError, Mode, NotFoundError, QuerySyntaxError, RedownloadResult, SemanticError, Store
from conftest import US_AGENCIES

ANY = {"If-Match": "*"}


def open_mixed(v4, tmp_path):
    return Store.open(tmp_path / "redownload.store", service_root=v4.service_root,
                      defining_requests={"Agencies": US_AGENCIES})


def first_agency(store):
    return store.get(US_AGENCIES + "&$orderby=agencynum&$top=1")[0]


def test_an_entity_changed_on_the_service_takes_its_values(v4, tmp_path):
    with open_mixed(v4, tmp_path) as store, Store(service_root=v4.service_root, mode=Mode.ONLINE) as online:
        url = f"TravelagencyCollection('{first_agency(store)['agencynum']}')"
        online.update(url, {"name": "Changed Online"}, headers=ANY)
        redownloaded = store.redownload(url)
        assert isinstance(redownloaded, RedownloadResult)
        assert redownloaded == RedownloadResult("TravelagencyCollection", "updated")
        assert store.get(url)["name"] == "Changed Online"
        # The service's ETag came with it: a change made now is taken by the service.
        store.update(url, {"city": "Redownload City"})
        assert store.upload() == (1, 0)
        assert online.get(url)["city"] == "Redownload City"


def test_an_entity_with_a_queued_change_is_refused_and_keeps_it(v4, tmp_path):
    with open_mixed(v4, tmp_path) as store:
        url = f"TravelagencyCollection('{first_agency(store)['agencynum']}')"
        store.update(url, {"name": "Changed Offline"})
        with pytest.raises(MisuseError, match="queued or archived requests"):
            store.redownload(url)
        assert store.get(url)["name"] == "Changed Offline"
        assert len(store.request_queue()) == 1


def test_an_entity_deleted_on_the_service_leaves_the_store(v4, tmp_path):
    with open_mixed(v4, tmp_path) as store, Store(service_root=v4.service_root, mode=Mode.ONLINE) as online:
        url = "TravelagencyCollection('99000071')"
        store.create("TravelagencyCollection", {"agencynum": "99000071", "name": "Short-lived", "country": "US"})
        assert store.upload() == (1, 0)
        online.delete(url, headers=ANY)
        assert store.redownload(url) == RedownloadResult("TravelagencyCollection", "removed")
        with pytest.raises(NotFoundError):
            store.get(url)


def test_a_url_that_is_not_one_entity_is_refused(v4, tmp_path):
    with open_mixed(v4, tmp_path) as store:
        with pytest.raises((SemanticError, QuerySyntaxError)):
            store.redownload("TravelagencyCollection")
        with pytest.raises(NotFoundError):
            store.redownload("TravelagencyCollection('00999999')")
        with pytest.raises(TypeError):
            store.redownload(7)
