"""`request --mode mixed` on the real V4 backend (odatapy): the router sends a covered read to the
offline store and a function import to the service, and says which on standard error."""
import json
import urllib.parse

from conftest import get_json


def run(tool, *arguments):
    result = tool(*arguments)
    assert result.returncode == 0, result.stderr
    return result


def test_mixed_mode_reads_covered_sets_offline_and_calls_function_imports_online(tool, make_store, v4):
    store = make_store(v4, "v4", ("Agencies", "TravelagencyCollection?$filter=country eq 'US'"))
    run(tool, "download", store)
    agency = get_json(v4.service_root + "TravelagencyCollection?$top=1&$orderby=agencynum")["value"][0]
    agencynum = agency["agencynum"]

    # The function import goes to the service, which answers with the agency.
    called = run(tool, "request", store, "--mode", "mixed", f"GetAgencyDetails(agencynum='{agencynum}')")
    assert "route: online" in called.stderr and "function import" in called.stderr
    answered = json.loads(called.stdout)
    assert answered["agencynum"] == agencynum and answered["name"] == agency["name"]

    # A covered read is answered by the store: what the defining request brought, US agencies only.
    us = get_json(v4.service_root + "TravelagencyCollection?" + urllib.parse.quote("$filter=country eq 'US'", safe="$='"))["value"]
    assert us
    read = run(tool, "request", store, "--mode", "mixed", "TravelagencyCollection?$filter=country eq 'US'&$orderby=agencynum")
    assert "route: offline" in read.stderr and "'Agencies'" in read.stderr
    assert [a["agencynum"] for a in json.loads(read.stdout)["value"]] == sorted(a["agencynum"] for a in us)
    outside = run(tool, "request", store, "--mode", "mixed", "TravelagencyCollection?$filter=country ne 'US'")
    assert json.loads(outside.stdout)["value"] == []

    # Online mode asks the service for the same read.
    online = run(tool, "request", store, "--mode", "online", "TravelagencyCollection?$filter=country ne 'US'")
    assert online.stderr == "" and json.loads(online.stdout)["value"]
