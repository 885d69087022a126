"""Uploading the request queue in ``$batch`` requests (``batch_size``, ``group_by_transaction``)."""
import pytest

from offline_odata import MisuseError, Mode, Store
from conftest import US_AGENCIES

NEW = [{"agencynum": "99000031", "name": "Batch One", "city": "Boston", "country": "US"},
       {"agencynum": "99000032", "name": "Batch Two", "city": "Salem", "country": "US"}]


@pytest.mark.parametrize("group", [False, True])
def test_a_batch_upload_sends_two_creates(backend, tmp_path, group):
    with Store.open(tmp_path / "batch.store", service_root=backend.service_root, batch_size=10,
                    group_by_transaction=group, defining_requests={"Agencies": US_AGENCIES}) as store:
        for entity in NEW:
            store.create("TravelagencyCollection", entity)
        assert len(store.request_queue()) == 2
        assert store.upload() == (2, 0)
        assert store.request_queue() == []
    with Store(service_root=backend.service_root, mode=Mode.ONLINE) as online:
        for entity in NEW:
            assert online.get(f"TravelagencyCollection('{entity['agencynum']}')")["name"] == entity["name"]


def test_the_batch_goes_as_one_batch_request(proxy, tmp_path):
    with Store.open(tmp_path / "proxied.store", service_root=proxy.root, batch_size=10,
                    defining_requests={"Agencies": US_AGENCIES}) as store:
        for entity in NEW:
            store.create("TravelagencyCollection", entity)
        before = len(proxy.requests)
        assert store.upload() == (2, 0)
    sent = [(seen.method, seen.path) for seen in proxy.requests[before:] if seen.method != "GET"]
    assert len(sent) == 1 and sent[0][0] == "POST" and sent[0][1].endswith("$batch")
    body = proxy.requests[before:][[s.method for s in proxy.requests[before:]].index("POST")].body.decode("utf-8")
    assert "99000031" in body and "99000032" in body


def test_without_batch_size_each_request_goes_alone(proxy, tmp_path):
    with Store.open(tmp_path / "single.store", service_root=proxy.root,
                    defining_requests={"Agencies": US_AGENCIES}) as store:
        for entity in NEW:
            store.create("TravelagencyCollection", entity)
        before = len(proxy.requests)
        assert store.upload() == (2, 0)
    posts = [seen.path for seen in proxy.requests[before:] if seen.method == "POST"]
    assert len(posts) == 2 and not any("$batch" in path for path in posts)


@pytest.mark.parametrize("options", [{"batch_size": -1}, {"group_by_transaction": True},
                                     {"batch_size": 0, "group_by_transaction": True}])
def test_bad_batch_settings_are_misuse(options, store_path):
    with pytest.raises(MisuseError):
        Store.open(store_path, **options)


@pytest.mark.parametrize("options", [{"batch_size": "5"}, {"batch_size": True}, {"batch_size": 2.0},
                                     {"group_by_transaction": 1}])
def test_batch_settings_of_the_wrong_type_are_type_errors(options, store_path):
    with pytest.raises(TypeError):
        Store.open(store_path, **options)


def test_the_batch_fields_default_to_one_request_at_a_time():
    from offline_odata import Options
    options = Options()
    assert options.batch_size == 0 and options.group_by_transaction is False


@pytest.mark.parametrize("transaction, change_sets", [(None, 2), ("agencies", 1)])
def test_writes_of_one_transaction_go_in_one_change_set(proxy, tmp_path, transaction, change_sets):
    with Store.open(tmp_path / "transaction.store", service_root=proxy.root, batch_size=10, group_by_transaction=True,
                    defining_requests={"Agencies": US_AGENCIES}) as store:
        for entity in NEW:
            store.create("TravelagencyCollection", entity, transaction=transaction)
        assert [queued["transactionID"] for queued in store.request_queue()] == [transaction, transaction]
        before = len(proxy.requests)
        assert store.upload() == (2, 0)
    batch = [seen for seen in proxy.requests[before:] if seen.method == "POST"]
    assert len(batch) == 1
    assert batch[0].body.decode("utf-8").count("boundary=changeset") == change_sets


@pytest.mark.parametrize("transaction, error", [("", MisuseError), (7, TypeError)])
def test_a_bad_transaction_name_is_refused(store_path, transaction, error):
    from conftest import metadata
    with Store.open(store_path, metadata=metadata("v4"), mode=Mode.OFFLINE) as store:
        with pytest.raises(error):
            store.create("TravelagencyCollection", NEW[0], transaction=transaction)
        assert store.request_queue() == []
