"""Online reads follow the service's pages (issue 21), on both real services with pages of 10:
odatapy (V4, ``@odata.nextLink``) and mock-sap (V2, ``__next``, ``start_v2(page_size=...)``).

``get`` gives the whole collection (its count the service's ``$count``), ``$top`` across a page
boundary and ``$skip`` as the service means them, ``pages`` one page at a time to the same entities,
mixed mode reads an uncovered set online and whole; a next link off the service's origin (the
fault proxy rewrites a page) is refused with nothing sent to the other origin, and so is a next
link that repeats a page."""
import json
import os
import urllib.request

import pytest

from offline_odata import Mode, NetworkError, Store
from conftest import REPOSITORY, US_AGENCIES, _load, backends, metadata

PAGE = 10
ORDER = "$orderby=agencynum"
fault_proxy = _load("ood_test_fault_proxy", os.path.join(REPOSITORY, "Tests", "sync", "fault_proxy.py"))
other_origin_module = _load("ood_test_other_origin", os.path.join(REPOSITORY, "Tests", "backends", "other_origin.py"))


@pytest.fixture(scope="module")
def v2_paged_server():
    server = backends.start_v2(csrf=True, data="small", page_size=PAGE)
    yield server
    server.stop()


@pytest.fixture(params=["v4", "v2"])
def paged(request, v4_server):
    """Each backend in turn with pages of 10 (the session's V4 server pages by 10 already)."""
    server = v4_server if request.param == "v4" else request.getfixturevalue("v2_paged_server")
    server.reset()
    return server


def service_count(backend, entity_set):
    with urllib.request.urlopen(backend.service_root + entity_set + "/$count", timeout=30) as answer:
        return int(answer.read())


def count_option(backend):
    return "$count=true" if backend.kind == "v4" else "$inlinecount=allpages"


def inline_count(document):
    return document["@odata.count"] if "@odata.count" in document else int(document["d"]["__count"])


def test_get_reads_the_whole_collection_with_the_first_pages_count(paged):
    expected = service_count(paged, "BookingCollection")
    assert expected > 3 * PAGE
    with Store(service_root=paged.service_root, mode=Mode.ONLINE) as store:
        raw = store.get("BookingCollection?" + count_option(paged), raw=True)
        document = json.loads(raw)
        assert inline_count(document) == expected
        assert "nextLink" not in raw and "__next" not in raw
        assert len(store.get("BookingCollection")) == expected
        first = next(store.pages("BookingCollection"))
        assert len(first.value()) == PAGE and first.next_link.startswith(paged.service_root)


def test_top_across_a_page_boundary_and_skip_are_the_services(paged):
    with Store(service_root=paged.service_root, mode=Mode.ONLINE) as store:
        every = store.get("TravelagencyCollection?" + ORDER)
        assert len(every) == service_count(paged, "TravelagencyCollection") > 2 * PAGE
        assert store.get(f"TravelagencyCollection?{ORDER}&$top={PAGE + 3}") == every[:PAGE + 3]
        assert store.get(f"TravelagencyCollection?{ORDER}&$skip=4&$top={2 * PAGE}") == every[4:4 + 2 * PAGE]
        assert store.get(f"TravelagencyCollection?{ORDER}&$skip={len(every) - 2}") == every[-2:]


def test_pages_reads_one_page_at_a_time_to_the_same_entities(paged):
    with Store(service_root=paged.service_root, mode=Mode.ONLINE) as store:
        every = store.execute("GET", "TravelagencyCollection?" + ORDER).value()  # as sent, as pages give it
        pages = list(store.pages("TravelagencyCollection?" + ORDER))
        assert len(pages) == -(-len(every) // PAGE) > 1
        assert all(len(page.value()) <= PAGE for page in pages)
        assert all(page.next_link for page in pages[:-1]) and pages[-1].next_link is None
        assert [agency for page in pages for agency in page.value()] == every
        # A kept next link goes on from there.
        assert [a for page in store.pages(pages[1].next_link) for a in page.value()] == every[2 * PAGE:]


def test_pages_asks_for_a_page_only_when_the_iteration_gets_there(v4, proxy):
    with Store(service_root=proxy.root, mode=Mode.ONLINE) as store:
        proxy.requests.clear()
        iterator = store.pages("TravelagencyCollection")
        assert proxy.requests == []
        next(iterator)
        assert len(proxy.requests) == 1
        next(iterator)
        assert len(proxy.requests) == 2 and "skiptoken" in proxy.requests[1].path


def test_mixed_mode_reads_an_uncovered_set_online_and_whole(paged, tmp_path):
    with Store.open(tmp_path / f"{paged.kind}.store", service_root=paged.service_root,
                    defining_requests={"Agencies": US_AGENCIES}) as store:
        route = store.route("BookingCollection")
        assert route.online and "no defining request covers BookingCollection" in route.reason
        assert len(store.get("BookingCollection")) == service_count(paged, "BookingCollection")
        first = next(store.pages("BookingCollection"))
        assert store.route(first.next_link).online


def test_offline_reads_are_whole_one_page(tmp_path):
    path = tmp_path / "offline.store"
    with Store(path, mode=Mode.OFFLINE, metadata=metadata("v4"), defining_requests={"Agencies": US_AGENCIES}) as store:
        for number in range(PAGE + 2):
            store.create("TravelagencyCollection", {"agencynum": f"990000{number:02}", "name": "n", "country": "US"})
        pages = list(store.pages("TravelagencyCollection"))
        assert len(pages) == 1 and pages[0].next_link is None and len(pages[0].value()) == PAGE + 2


@pytest.fixture
def other_origin():
    server = other_origin_module.OtherOrigin()
    yield server
    server.stop()


@pytest.fixture
def faulty(v4):
    started = fault_proxy.FaultProxy(v4)
    yield started
    started.stop()


def page_with_next_link(link):
    return json.dumps({"@odata.context": "$metadata#TravelagencyCollection",
                       "value": [{"agencynum": "00000001"}], "@odata.nextLink": link})


def test_a_next_link_off_the_origin_is_refused_and_the_other_origin_gets_nothing(faulty, other_origin):
    link = f"http://127.0.0.1:{other_origin.port}/TravelagencyCollection?$skiptoken=10"
    with Store(service_root=faulty.service_root, mode=Mode.ONLINE, headers={"X-Api-Key": "key-of-alice"}) as store:
        faulty.add("rewrite", method="GET", match=r"^/TravelagencyCollection$", nth=1, body=page_with_next_link(link))
        with pytest.raises(NetworkError) as refused:
            store.get("TravelagencyCollection")
        assert "the next link on page 1" in str(refused.value) and link in str(refused.value)
        assert "leaves the service's origin" in str(refused.value)
        # One page at a time: the page comes, its link is refused when followed.
        faulty.add("rewrite", method="GET", match=r"^/TravelagencyCollection$", nth=1, body=page_with_next_link(link))
        pages = store.pages("TravelagencyCollection")
        assert next(pages).next_link == link
        with pytest.raises(NetworkError, match="leaves the service's origin"):
            next(pages)
    assert other_origin.received == []


def test_a_next_link_that_repeats_a_page_is_refused(faulty):
    with Store(service_root=faulty.service_root, mode=Mode.ONLINE) as store:
        faulty.add("rewrite", method="GET", match=r"^/TravelagencyCollection$", nth=1,
                   body=page_with_next_link("TravelagencyCollection"))
        with pytest.raises(NetworkError, match="repeats a page this read already asked for"):
            store.get("TravelagencyCollection")
        assert [entry["target"] for entry in faulty.log() if "Travelagency" in entry["target"]] == ["/TravelagencyCollection"]


def test_more_pages_than_max_pages_is_an_error_not_a_cut(v4):
    with Store(service_root=v4.service_root, mode=Mode.ONLINE, max_pages=2) as store:
        with pytest.raises(NetworkError, match="more than 2 pages"):
            store.get("TravelagencyCollection")
        assert len(store.get(f"TravelagencyCollection?$top={2 * PAGE}")) == 2 * PAGE
