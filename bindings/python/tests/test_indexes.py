"""Declared indexes through the binding (issue 23): made when the store opens on the V4 service,
listed by status, used by the plan explain shows, the answers unchanged; bad ones refused."""
import pytest

from offline_odata import MisuseError, Store
from conftest import US_AGENCIES

CITY_READ = "TravelagencyCollection?$filter=city eq 'New York'&$top=3"


def test_a_declared_index_is_made_on_open_listed_and_used(v4, tmp_path):
    path = tmp_path / "plain.store"
    with Store.open(path, service_root=v4.service_root, defining_requests={"Agencies": US_AGENCIES}) as store:
        plain = store.get(CITY_READ)
        assert store.status()["indexes"] == []
        assert not any("index/city" in step for step in store.explain(CITY_READ)["plan"])
    # Reopened with declarations: the two forms of the option.
    with Store.open(path, service_root=v4.service_root,
                    indexes=["TravelagencyCollection:city", ("TravelagencyCollection", ["country", "name"])]) as store:
        indexes = store.status()["indexes"]
        assert [(index["entitySet"], index["properties"], index["origin"]) for index in indexes] == [
            ("TravelagencyCollection", ["city"], "declared"),
            ("TravelagencyCollection", ["country", "name"], "declared")]
        assert indexes[0]["name"] == "es/TravelagencyCollection/index/city"
        plan = store.explain(CITY_READ)["plan"]
        assert any("USING INDEX es/TravelagencyCollection/index/city (city=?)" in step for step in plan), plan
        assert store.get(CITY_READ) == plain
        assert plain, "the sample has agencies in New York"


@pytest.mark.parametrize("indexes, error, words", [
    (["TravelagencyCollection:mayor"], MisuseError, "no stored property 'mayor'"),
    (["Nowhere:city"], MisuseError, "no entity set 'Nowhere'"),
    (["TravelagencyCollection:city,,name"], MisuseError, "empty property name"),
    (["TravelagencyCollection"], ValueError, "EntitySet:Prop1,Prop2"),
    ("TravelagencyCollection:city", TypeError, "sequence"),
    ([("TravelagencyCollection", "city")], TypeError, "sequence of str"),
])
def test_an_index_that_does_not_fit_is_refused(v4, tmp_path, indexes, error, words):
    with pytest.raises(error, match=words):
        Store.open(tmp_path / "bad.store", service_root=v4.service_root, defining_requests={"Agencies": US_AGENCIES},
                   indexes=indexes)


def test_reads_that_repeat_get_an_automatic_index_without_a_download(v4, tmp_path):
    """Ten reads of a shape in one session: the store makes its index by itself after the tenth,
    off the read path; create_automatic_indexes (which runs after that job) finds nothing left."""
    with Store.open(tmp_path / "auto.store", service_root=v4.service_root,
                    defining_requests={"Agencies": US_AGENCIES}) as store:
        answer = store.get(CITY_READ)
        for _ in range(9):
            assert store.get(CITY_READ) == answer
        assert store.create_automatic_indexes() == []
        indexes = store.status()["indexes"]
        assert [(index["properties"], index["origin"]) for index in indexes] == [(["city"], "automatic")]
        plan = store.explain(CITY_READ)["plan"]
        assert any("USING INDEX es/TravelagencyCollection/index/city (city=?)" in step for step in plan), plan
        assert store.get(CITY_READ) == answer
