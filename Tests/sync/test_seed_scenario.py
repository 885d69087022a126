"""The seed scenario (DESIGN.md §4.1, §4.2; issue 5 acceptance 2) on the real V2 backend, with the
blog posts' URLs verbatim: the offline store holds only what its defining requests bring."""
import json

from conftest import get_json


def run(tool, *arguments):
    result = tool(*arguments)
    assert result.returncode == 0, result.stderr
    return result.stdout


def results(stdout):
    return json.loads(stdout)["d"]["results"]


def test_seed_scenario_the_offline_store_holds_only_what_its_defining_requests_bring(tool, make_store, v2):
    store = make_store(v2, "v2", ("Agencies", "TravelagencyCollection?$filter=country eq 'US'"))
    run(tool, "download", store)

    # The service has agencies in Beijing and flights after 2013-09-16 ...
    beijing = get_json(v2.service_root + "TravelagencyCollection?$filter=city%20eq%20'Beijing'&$format=json")["d"]["results"]
    flights = get_json(v2.service_root
                       + "FlightCollection?$filter=fldate%20gt%20datetime'2013-09-16T00:00'&$format=json")["d"]["results"]
    assert beijing and flights

    # ... but the offline store answers from what its defining request brought: US agencies only.
    us = results(run(tool, "request", store, "TravelagencyCollection?$filter=country eq 'US'"))
    assert us and all(agency["country"] == "US" for agency in us)
    assert results(run(tool, "request", store, "TravelagencyCollection?$filter=city eq 'Beijing'")) == []
    assert results(run(tool, "request", store, "FlightCollection?$filter=fldate gt datetime'2013-09-16T00:00'")) == []

    # A function import is rejected by the offline store, with the reason.
    rejected = tool("request", store, "GetAgencyDetails?agencynum='00000001'")
    assert rejected.returncode == 1
    assert "does not run operations" in rejected.stderr

    # Beyond SAP: the store says why.
    inside = json.loads(run(tool, "explain", store, "TravelagencyCollection?$filter=country eq 'US' and city eq 'Boston'", "--json"))
    assert inside["insideScope"] and inside["definingRequests"] == ["Agencies"]
    outside = json.loads(run(tool, "explain", store, "TravelagencyCollection?$filter=city eq 'Beijing'", "--json"))
    assert not outside["insideScope"]
    assert "?1" in outside["sql"] and "Beijing" not in outside["sql"]
