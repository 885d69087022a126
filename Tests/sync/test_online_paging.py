"""`request` reads what the service answers whole (issue 21), on both real services with pages
smaller than the answer: odatapy (V4, pages of 25) and mock-sap (V2, pages of 20); `--one-page`
gives one page and its next link. A next link off the service's origin (the fault proxy rewrites a
page) stops the read, naming it, and the other origin gets nothing: no credentials, no header."""
from __future__ import annotations

import json
import os
import subprocess
import urllib.request

import pytest

import backends
from other_origin import OtherOrigin
from test_untrusted_service import SECRETS, page_with_next_link

V2_PAGE = 20


@pytest.fixture(scope="module")
def v2_paged_server():
    server = backends.start_v2(csrf=True, data="small", page_size=V2_PAGE)
    yield server
    server.stop()


@pytest.fixture(params=["v4", "v2"])
def paged(request):
    """Each backend with pages smaller than the collections: V4 by 25 (the module's), V2 by 20."""
    server = request.getfixturevalue("v4" if request.param == "v4" else "v2_paged_server")
    server.reset()
    return server


@pytest.fixture
def other_origin():
    server = OtherOrigin()
    yield server
    server.stop()


def entities(document):
    return document["value"] if "value" in document else document["d"]["results"]


def service_count(backend, entity_set):
    """The service's own `$count` (plain text), asked directly."""
    with urllib.request.urlopen(backend.service_root + entity_set + "/$count", timeout=30) as answer:
        return int(answer.read())


def request(tool, store, *arguments):
    result = tool("request", store, "--mode", "online", *arguments)
    assert result.returncode == 0, result.stderr
    return result


def test_request_prints_the_whole_collection_with_the_first_pages_count(tool, make_store, paged):
    store = make_store(paged, paged.kind)
    expected = service_count(paged, "BookingCollection")
    count = "$count=true" if paged.kind == "v4" else "$inlinecount=allpages"
    answer = json.loads(request(tool, store, f"BookingCollection?{count}").stdout)
    assert len(entities(answer)) == expected > 100
    assert (answer.get("@odata.count") or int(answer["d"]["__count"])) == expected
    topped = json.loads(request(tool, store, "BookingCollection?$orderby=bookid&$top=30").stdout)
    assert len(entities(topped)) == 30


def test_one_page_gives_the_page_and_its_next_link_to_go_on_with(tool, make_store, paged):
    store = make_store(paged, paged.kind)
    page_size = 25 if paged.kind == "v4" else V2_PAGE
    url = "TravelagencyCollection?$orderby=agencynum"
    whole = entities(json.loads(request(tool, store, url).stdout))
    gathered, pages, link = [], 0, url
    while link is not None and pages < 20:
        page = json.loads(request(tool, store, link, "--one-page", "--json").stdout)
        pages += 1
        assert page["route"] is None and len(entities(page["body"])) <= page_size
        gathered += entities(page["body"])
        link = page["nextLink"]
        assert link is None or link.startswith(paged.service_root)
    assert pages == -(-len(whole) // page_size) > 1
    assert gathered == whole
    # Without --json the page is printed as the service sent it, its next link in it.
    printed = json.loads(request(tool, store, url, "--one-page").stdout)
    assert len(entities(printed)) == page_size
    assert "@odata.nextLink" in printed or "__next" in printed["d"]


def test_mixed_mode_reads_an_uncovered_set_online_and_whole(tool, make_store, paged):
    store = make_store(paged, paged.kind, ("Agencies", "TravelagencyCollection?$filter=country eq 'US'"))
    result = tool("request", store, "--mode", "mixed", "BookingCollection")
    assert result.returncode == 0, result.stderr
    assert "route: online (no defining request covers BookingCollection)" in result.stderr
    assert len(entities(json.loads(result.stdout))) == service_count(paged, "BookingCollection")


def test_a_next_link_off_the_origin_stops_the_read_and_sends_the_other_origin_nothing(make_store, v4, fault_proxy,
                                                                                      other_origin):
    proxy = fault_proxy(v4)
    store = make_store(proxy, "v4")
    link = f"http://mallory:stolen@127.0.0.1:{other_origin.port}/TravelagencyCollection?$skiptoken=5"
    proxy.add("rewrite", method="GET", match=r"^/TravelagencyCollection$", nth=1, body=page_with_next_link(link))
    environment = {**os.environ, "OFFLINE_ODATA_PASSWORD": "password-of-alice"}
    failed = subprocess.run([os.environ["OOD_TOOL"], "request", store, "--mode", "online", "TravelagencyCollection",
                             *SECRETS], capture_output=True, text=True, timeout=300, env=environment,
                            stdin=subprocess.DEVNULL)
    assert failed.returncode == 1, failed.stdout
    assert "the next link on page 1 of GET" in failed.stderr and "leaves the service's origin" in failed.stderr
    assert link.replace("mallory:stolen@", "") in failed.stderr and "stolen" not in failed.stderr
    assert failed.stdout == ""
    assert other_origin.received == []
    assert [entry["target"] for entry in proxy.log() if "Travelagency" in entry["target"]] == ["/TravelagencyCollection"]


def test_one_page_is_for_reads_only(tool, make_store, v4):
    store = make_store(v4, "v4")
    refused = tool("request", store, "--mode", "online", "--method", "POST", "TravelagencyCollection",
                   "--body", "{}", "--one-page")
    assert refused.returncode == 64 and "--one-page" in refused.stderr and "GET" in refused.stderr
