"""Properties whose names differ only in case (issue 20), with the tool against the real V4 backend.

odatapy serves a model whose entity type has `Code`/`code` (the key, both parts), `Name`/`name`,
`Rank`/`RANK`, the complex `Address`/`address` (each with `City`/`city`) and `_OOD_ID`, and a
derived type with `NAME`. SQLite compares column names without case; the store keeps each property
in a column of its own. The store is made, downloaded, read with `$filter`, `$orderby` and
`$select` on each property, changed offline (creates with complex values and of the derived type,
an update, a delete) and uploaded (one by one, and as a `$batch`); the service then has every
change under the right names, a second download gives back exactly what the service has, and so
does a re-download of one entity.
"""
from __future__ import annotations

import json
import urllib.error
import urllib.parse
from pathlib import Path

import pytest

import backends
from conftest import get_json, send

# Shared with CaseDistinctPropertiesTests (Swift); it also has `_OOD_ID` and derived types.
METADATA = Path(backends.__file__).parent / "models" / "case-distinct-v4.xml"

# The test server's seed takes primitive values only: complex values come with the offline create.
SEED = {"Items": [
    {"Code": "A", "code": "a", "Name": "upper A", "name": "lower a", "Rank": 1, "RANK": 20},
    {"Code": "B", "code": "b", "Name": "upper B", "name": "lower b", "Rank": 2, "RANK": 10},
]}

PROPERTIES = ["Code", "code", "Name", "name", "Rank", "RANK", "Address", "address", "_OOD_ID", "NAME", "Extra"]


@pytest.fixture(scope="module")
def case_server():
    server = backends.start_v4_model(METADATA, SEED)
    yield server
    server.stop()


def run_ok(tool, *arguments):
    result = tool(*arguments)
    assert result.returncode == 0, result.stderr
    return result.stdout


def properties(entity):
    """An entity's properties (annotations left out). A complex value with only null members counts
    as null: the store keeps complex values flattened and cannot tell the two apart."""
    def value(member):
        return None if isinstance(member, dict) and all(v is None for v in member.values()) else member
    return {name: value(entity.get(name)) for name in PROPERTIES}


def local(tool, store, url):
    """The entities of a local read, each with its properties only."""
    return [properties(entity) for entity in json.loads(run_ok(tool, "request", store, url))["value"]]


def codes(tool, store, url):
    return [entity["Code"] + entity["code"] for entity in local(tool, store, url)]


def served(server, url):
    """The service's answer, read directly."""
    return get_json(server.service_root + urllib.parse.quote(url, safe="?$=&',()/"))


@pytest.mark.parametrize("upload", [[], ["--batch"]], ids=["one-by-one", "batch"])
def test_each_case_distinct_property_keeps_its_values_through_download_writes_and_upload(upload, tool, case_server, tmp_path):
    server = case_server
    server.reset()
    store = tmp_path / "case.store"
    run_ok(tool, "store", "create", store, "--metadata", METADATA, "--service", server.service_root,
           "--defining", "All=Items")
    run_ok(tool, "download", store)

    assert codes(tool, store, "Items?$filter=name eq 'lower a'") == ["Aa"]
    assert codes(tool, store, "Items?$filter=Name eq 'lower a'") == []
    assert codes(tool, store, "Items?$filter=code eq 'b'") == ["Bb"]
    assert codes(tool, store, "Items?$orderby=Rank") == ["Aa", "Bb"]
    assert codes(tool, store, "Items?$orderby=RANK") == ["Bb", "Aa"]
    selected = json.loads(run_ok(tool, "request", store, "Items?$select=name&$filter=Code eq 'A'"))["value"]
    assert [entity.get("name") for entity in selected] == ["lower a"] and "Name" not in selected[0]
    entity = json.loads(run_ok(tool, "request", store, "Items(Code='A',code='a')"))
    assert (entity["Name"], entity["name"], entity["Rank"], entity["RANK"]) == ("upper A", "lower a", 1, 20)

    # Offline: a create with both complex values, an update of one of each pair, a delete.
    run_ok(tool, "request", store, "--method", "POST", "Items", "--body", json.dumps(
        {"Code": "C", "code": "c", "Name": "upper C", "name": "lower c", "RANK": 5,
         "Address": {"City": "Berlin", "city": "bonn"}, "address": {"City": "Paris", "city": "lyon"}}))
    run_ok(tool, "request", store, "--method", "POST", "Items", "--body", json.dumps(
        {"@odata.type": "#Case.Special", "Code": "D", "code": "d", "Name": "upper D", "NAME": "shout D",
         "Extra": "extra D", "_OOD_ID": "own D"}))
    run_ok(tool, "request", store, "--method", "PATCH", "Items(Code='A',code='a')", "--body",
           json.dumps({"name": "patched a", "Rank": 7}))
    run_ok(tool, "request", store, "--method", "DELETE", "Items(Code='B',code='b')")
    assert codes(tool, store, "Items?$filter=address/city eq 'lyon' and Address/City eq 'Berlin'") == ["Cc"]
    assert codes(tool, store, "Items?$filter=Address/city eq 'lyon'") == []

    run_ok(tool, "upload", store, *upload)
    a = served(server, "Items(Code='A',code='a')")
    assert (a["Name"], a["name"], a["Rank"], a["RANK"]) == ("upper A", "patched a", 7, 20)
    c = served(server, "Items(Code='C',code='c')")
    assert (c["Name"], c["name"], c["Rank"], c["RANK"]) == ("upper C", "lower c", None, 5)
    assert c["Address"] == {"City": "Berlin", "city": "bonn"} and c["address"] == {"City": "Paris", "city": "lyon"}
    d = served(server, "Items(Code='D',code='d')")
    assert (d["@odata.type"], d["Name"], d["name"], d["NAME"], d["_OOD_ID"]) == ("#Case.Special", "upper D", None, "shout D", "own D")
    with pytest.raises(urllib.error.HTTPError) as gone:
        served(server, "Items(Code='B',code='b')")
    assert gone.value.code == 404

    # A second download gives the store exactly what the service has, property by property.
    run_ok(tool, "download", store)
    service = [properties(entity) for entity in served(server, "Items?$orderby=Code")["value"]]
    assert local(tool, store, "Items?$orderby=Code") == service
    assert [entity["Code"] for entity in service] == ["A", "C", "D"]
    assert codes(tool, store, "Items/Case.Special?$filter=NAME eq 'shout D' and Name eq 'upper D'") == ["Dd"]

    # Someone changes one of each pair on the service; a re-download of the entity takes each value.
    send(server.service_root + "Items(Code='A',code='a')", "PATCH", {"Name": "served A", "RANK": 21})
    run_ok(tool, "archive", store, "--redownload", "Items(Code='A',code='a')")
    assert local(tool, store, "Items?$filter=Code eq 'A'") == [properties(served(server, "Items(Code='A',code='a')"))]
    assert codes(tool, store, "Items?$filter=Name eq 'served A' and name eq 'patched a' and RANK eq 21 and Rank eq 7") == ["Aa"]
