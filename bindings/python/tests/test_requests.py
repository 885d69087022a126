"""Requests through the whole store API against the real V4 (odatapy) and V2 (mock-sap) services."""
import json
from concurrent.futures import wait as wait_futures

import pytest

import offline_odata
from offline_odata import (AnswerKind, HTTPError, MisuseError, Mode, NotFoundError, QuerySyntaxError, Result,
                           SemanticError, Store, UnsupportedError)
from conftest import US_AGENCIES


def function_import(kind: str, agencynum: str) -> str:
    """GetAgencyDetails in each dialect: V4 passes parameters inline, V2 as query options."""
    return f"GetAgencyDetails(agencynum='{agencynum}')" if kind == "v4" else f"GetAgencyDetails?agencynum='{agencynum}'"


def open_mixed(backend, tmp_path, **options):
    return Store.open(tmp_path / f"{backend.kind}.store", service_root=backend.service_root,
                      defining_requests={"Agencies": US_AGENCIES}, **options)


def service_agencies(backend, filter_text):
    """The service's own answer (online, one page: the filters keep it below the page size)."""
    with Store(service_root=backend.service_root, mode=Mode.ONLINE) as online:
        return online.get("TravelagencyCollection?$filter=" + filter_text)


def test_covered_reads_answer_offline_with_what_the_defining_request_brought(backend, tmp_path):
    us = sorted(a["agencynum"] for a in service_agencies(backend, "country eq 'US'"))
    assert us and service_agencies(backend, "country ne 'US'")
    with open_mixed(backend, tmp_path) as store:
        assert store.route(US_AGENCIES) == (False, store.route(US_AGENCIES).reason)
        read = store.get(US_AGENCIES + "&$orderby=agencynum")
        assert [a["agencynum"] for a in read] == us
        assert all(isinstance(a, dict) for a in read)
        # Outside the defining request the offline store holds nothing (DESIGN 4.1).
        assert store.get("TravelagencyCollection?$filter=country ne 'US'") == []
        assert store.get("TravelagencyCollection/$count") == len(us)


def test_one_entity_a_count_and_the_raw_answer(backend, tmp_path):
    with open_mixed(backend, tmp_path) as store:
        first = store.get(US_AGENCIES + "&$orderby=agencynum&$top=1")[0]
        one = store.get(f"TravelagencyCollection('{first['agencynum']}')")
        assert isinstance(one, dict) and one["name"] == first["name"]
        assert "@odata.context" not in one
        raw = store.get(US_AGENCIES, raw=True)
        assert isinstance(raw, str)
        document = json.loads(raw)
        wrapped = document["value"] if backend.kind == "v4" else document["d"]["results"]
        assert len(wrapped) == store.get("TravelagencyCollection/$count")
        result = store.execute("GET", US_AGENCIES)
        assert isinstance(result, Result) and result.status == 200
        assert result.content_type.startswith("application/json")
        assert result.json() == document and result.value() == wrapped
        assert json.loads(result.text) == document
        counted = store.execute("get", "TravelagencyCollection/$count")
        assert counted.value() == len(wrapped) and not counted.content_type.startswith("application/json")
        assert "Result 200" in repr(result)


def test_each_answer_says_what_it_holds_offline_and_online(backend, tmp_path):
    with open_mixed(backend, tmp_path) as store, Store(service_root=backend.service_root, mode=Mode.ONLINE) as online:
        for answering in (store, online):
            collection = answering.execute("GET", US_AGENCIES).shape
            assert collection.kind is AnswerKind.COLLECTION and collection.entity_set == "TravelagencyCollection"
            assert collection.entity_type is not None and collection.entity_type.endswith(".Travelagency")
            key = f"TravelagencyCollection('{answering.get(US_AGENCIES + '&$top=1')[0]['agencynum']}')"
            assert answering.execute("GET", key).shape == collection._replace(kind=AnswerKind.ENTITY)
            name = answering.execute("GET", key + "/name").shape
            assert (name.kind, name.property, name.property_type) == (AnswerKind.PROPERTY, "name", "Edm.String")
            assert answering.execute("GET", key + "/name/$value").shape.kind is AnswerKind.VALUE
            assert answering.execute("GET", "TravelagencyCollection/$count").shape.kind is AnswerKind.COUNT
        # An operation's answer is typed by the entity type it returns.
        details = online.execute("GET", function_import(backend.kind, "00000001")).shape
        assert details.entity_type is not None and details.entity_type.endswith(".Travelagency")


def test_create_update_delete_offline_then_upload(backend, tmp_path):
    with open_mixed(backend, tmp_path) as store:
        existing, doomed = [a["agencynum"] for a in store.get(US_AGENCIES + "&$orderby=agencynum&$top=2")]
        store.create("TravelagencyCollection", {"agencynum": "99000001", "name": "Py Travel", "city": "Boston",
                                                "country": "US"})
        store.update(f"TravelagencyCollection('{existing}')", {"city": "Salem"},
                     method="PATCH" if backend.kind == "v4" else "MERGE")
        store.delete(f"TravelagencyCollection('{doomed}')")
        assert store.get("TravelagencyCollection('99000001')")["name"] == "Py Travel"
        assert store.get(f"TravelagencyCollection('{existing}')")["city"] == "Salem"
        with pytest.raises(NotFoundError):
            store.get(f"TravelagencyCollection('{doomed}')")
        queue = store.request_queue()
        assert [entry["method"] for entry in queue] == ["POST", "PATCH" if backend.kind == "v4" else "MERGE", "DELETE"]
        assert all(entry["entitySet"] == "TravelagencyCollection" for entry in queue)
        assert store.status()["queuedRequests"] == 3

        assert store.upload() == (3, 0)
        assert store.request_queue() == []
    on_service = {a["agencynum"]: a for a in service_agencies(backend, "country eq 'US'")}
    assert on_service["99000001"]["name"] == "Py Travel"
    assert on_service[existing]["city"] == "Salem"
    assert doomed not in on_service


def test_function_imports_go_online_in_mixed_mode_and_are_refused_offline(backend, tmp_path):
    url = function_import(backend.kind, "00000001")
    with open_mixed(backend, tmp_path) as store:
        route = store.route(url)
        assert route.online and "function import" in route.reason
        answer = store.get(url)
        assert answer["agencynum"] == "00000001"
    with Store(tmp_path / f"{backend.kind}.store", mode=Mode.OFFLINE, service_root=backend.service_root) as offline:
        assert offline.route(url).online is False
        with pytest.raises(UnsupportedError):
            offline.get(url)


def test_a_refused_upload_goes_to_the_error_archive_and_can_be_deleted(backend, tmp_path):
    # A key the service has but the store does not (a non-US agency): the service refuses the create.
    taken = service_agencies(backend, "country ne 'US'")[0]["agencynum"]
    with open_mixed(backend, tmp_path) as store:
        store.create("TravelagencyCollection", {"agencynum": taken, "name": "Clash", "country": "US"})
        store.create("TravelagencyCollection", {"agencynum": "99000003", "name": "Fine", "country": "US"})
        outcome = store.upload()
        assert outcome == (1, 1)
        archive = store.error_archive()
        assert len(archive) == 1 and archive[0]["method"] == "POST" and 400 <= archive[0]["httpStatus"] < 500
        assert store.status()["archivedRequests"] == 1
        assert store.delete_archived(archive[0]["id"]) == 1
        assert store.error_archive() == [] and store.delete_archived(all=True) == 0
        with pytest.raises(ValueError):
            store.delete_archived(-3)


def test_explain_says_whether_a_read_lies_inside_a_defining_request(backend, tmp_path):
    with open_mixed(backend, tmp_path) as store:
        inside = store.explain(US_AGENCIES + " and city eq 'Boston'")
        assert inside["insideScope"] is True and "Agencies" in json.dumps(inside["definingRequests"])
        assert "SELECT" in inside["sql"]
        outside = store.explain("TravelagencyCollection?$filter=city eq 'Beijing'")
        assert outside["insideScope"] is False
        with pytest.raises(SemanticError):
            store.explain("TravelagencyCollection?$filter=nosuch eq 1")
        with pytest.raises(QuerySyntaxError) as caught:
            store.get("TravelagencyCollection?$filter=city eq")
        assert caught.value.offset is not None and caught.value.offset > 0


def test_status_describes_the_store(backend, tmp_path):
    with open_mixed(backend, tmp_path) as store:
        status = store.status()
        assert status["state"] == "open" and status["mode"] == "mixed"
        assert status["dialect"] == backend.kind
        assert status["serviceRoot"] == backend.service_root
        assert status["path"] == store.path
        assert [d["name"] for d in status["definingRequests"]] == ["Agencies"]
        assert store.format_version >= 2


def test_submit_completes_each_request_exactly_once_with_its_answer_or_error(backend, tmp_path):
    with open_mixed(backend, tmp_path) as store:
        count = store.get("TravelagencyCollection/$count")
        good = [store.submit("GET", "TravelagencyCollection/$count") for _ in range(20)]
        bad = store.submit("GET", "TravelagencyCollection?$filter=city eq")
        done, pending = wait_futures(good + [bad], timeout=60)
        assert not pending
        assert [future.result().value() for future in good] == [count] * 20
        assert isinstance(bad.exception(), QuerySyntaxError)


def test_open_without_waiting_holds_requests_until_the_store_is_open(backend, tmp_path):
    store = open_mixed(backend, tmp_path, wait=False)
    try:
        early = store.get(US_AGENCIES)  # issued while the first download may still run
        store.wait_until_open(timeout=60)
        assert early and len(early) == store.get("TravelagencyCollection/$count")
    finally:
        store.close()


def test_the_online_store_asks_the_service(backend, tmp_path):
    with Store(service_root=backend.service_root, mode=Mode.ONLINE) as store:
        assert store.route("TravelagencyCollection").online
        everything = store.get("TravelagencyCollection")
        assert any(a["country"] != "US" for a in everything)
        with pytest.raises(NotFoundError):
            store.get("TravelagencyCollection('nope')")
        with pytest.raises(offline_odata.MisuseError):
            store.path
        assert store.status()["mode"] == "online"


def test_an_online_write_the_service_refuses_is_an_http_error(v4):
    with Store(service_root=v4.service_root, mode=Mode.ONLINE) as store:
        carrier = store.get("CarrierCollection?$top=1")[0]["carrid"]
        with pytest.raises(HTTPError) as caught:
            store.create("CarrierCollection", {"carrid": carrier, "carrname": "Again"})
        assert "409" in caught.value.message


def test_an_online_create_returns_the_entity_the_service_made(v4):
    with Store(service_root=v4.service_root, mode=Mode.ONLINE) as store:
        made = store.create("CarrierCollection", {"carrid": "ZZ", "carrname": "Zed Air"})
        assert made["carrid"] == "ZZ" and made["carrname"] == "Zed Air"
        assert store.get("CarrierCollection('ZZ')")["carrname"] == "Zed Air"


def test_mode_offline_through_store_open_and_download_again(backend, tmp_path):
    with open_mixed(backend, tmp_path, mode=Mode.OFFLINE) as store:
        assert store.status()["mode"] == "offline"
        before = store.get("TravelagencyCollection/$count")
        with Store(service_root=backend.service_root, mode=Mode.ONLINE) as online:
            online.create("TravelagencyCollection", {"agencynum": "99000004", "name": "New", "country": "US"})
        assert store.get("TravelagencyCollection/$count") == before
        store.download()
        assert store.get("TravelagencyCollection/$count") == before + 1


def test_bad_arguments_are_clear_exceptions(v4, tmp_path):
    with open_mixed(v4, tmp_path) as store:
        with pytest.raises(TypeError):
            store.get(42)
        with pytest.raises(TypeError):
            store.execute("", "TravelagencyCollection")
        with pytest.raises(TypeError):
            store.execute("POST", "TravelagencyCollection", body=3.5)
        with pytest.raises(TypeError):
            store.create("TravelagencyCollection", [1, 2])
        with pytest.raises(ValueError):
            store.update("TravelagencyCollection('1')", {}, method="POST")
        with pytest.raises(QuerySyntaxError):
            store.execute("POST", "TravelagencyCollection", "{not json")


def test_route_details_answer_json_like_the_other_questions(backend, tmp_path):
    with open_mixed(backend, tmp_path) as store:
        details = store.route_details(US_AGENCIES)
        assert details == {"destination": "offline", "reason": store.route(US_AGENCIES).reason,
                           "coveringRequests": ["Agencies"]}
        operation = store.route_details(function_import(backend.kind, "00000001"))
        assert operation["destination"] == "online" and "function import" in operation["reason"]
        assert operation["coveringRequests"] == []
        with pytest.raises(MisuseError, match="HEAD"):
            store.route_details(US_AGENCIES, method="HEAD")


def test_download_of_named_defining_requests_whole_leaves_the_others_alone(backend, tmp_path):
    others = "TravelagencyCollection?$filter=country ne 'US'"
    with Store.open(tmp_path / f"{backend.kind}.store", service_root=backend.service_root,
                    defining_requests={"Agencies": US_AGENCIES, "Others": others}) as store:
        before = {request["name"]: request["lastDownload"] for request in store.status()["definingRequests"]}
        assert before["Agencies"] and before["Others"]
        # What the download does is read from the sync log, not from the clock: entries after this one.
        newest = store.sync_log(limit=1)[0].id
        pages = []
        store.download(progress=lambda done, total: pages.append(done), subset=["Others"], full=True)
        assert pages
        after = {request["name"]: request["lastDownload"] for request in store.status()["definingRequests"]}
        assert after["Agencies"] == before["Agencies"]
        # Time stamps have milliseconds, and a download over HTTP takes more than one.
        assert after["Others"] != before["Others"]
        assert [entry.defining_request for entry in store.sync_log() if entry.id > newest and entry.kind == "download"] == ["Others"]
        assert store.get("TravelagencyCollection?$filter=country ne 'US'")
        with pytest.raises(MisuseError, match="NoSuchRequest"):
            store.download(subset=["NoSuchRequest"])
        with pytest.raises(TypeError):
            store.download(subset="Others")
        with pytest.raises(TypeError):
            store.download(full=1)


def test_the_rest_of_the_query_language_answers_offline_as_the_service_and_refuses_with_its_class(v4, tmp_path):
    """`$search`, `matchesPattern`, `cast` and `isof` offline (issue 23) through the binding: the same
    agencies as the service's answer within the defining request; bad input raises its class."""
    with open_mixed(v4, tmp_path) as store, Store(service_root=v4.service_root, mode=Mode.ONLINE) as online:
        for query in ["$search=TRIPS OR boston NOT happy", "$filter=matchesPattern(name,'^[A-M]')",
                      "$filter=cast(creditlimit,Edm.Int64) gt 400000", "$filter=isof(name,Edm.String)"]:
            # The service is asked for the defining request's agencies and the query together.
            scoped = (US_AGENCIES + " and (" + query[len("$filter="):] + ")" if query.startswith("$filter=")
                      else US_AGENCIES + "&" + query)
            served = online.get(scoped)
            assert served, query
            local = store.get("TravelagencyCollection?" + query)
            assert sorted(a["agencynum"] for a in local) == sorted(a["agencynum"] for a in served), query
        with pytest.raises(SemanticError, match="not a valid regular expression"):
            store.get("TravelagencyCollection?$filter=matchesPattern(name,'(')")
        with pytest.raises(UnsupportedError, match="Edm.Binary"):
            store.get("TravelagencyCollection?$filter=cast(name,Edm.Binary) eq null")
