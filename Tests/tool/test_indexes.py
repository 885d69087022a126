"""`store create --index`, `status` and `explain` with declared indexes, and reads in key order
through the key index (issue 23), against the real V4 backend."""
import json
import os

import pytest

FLIGHT_V4 = os.path.join(os.path.dirname(__file__), "..", "..", "Examples", "FlightSample", "metadata-v4.xml")
CITY_READ = "TravelagencyCollection?$filter=city eq 'New York'&$top=2"


def create(tool, path, *extra):
    return tool("store", "create", path, "--metadata", FLIGHT_V4, "--defining", "Agencies=TravelagencyCollection", *extra)


def test_a_declared_index_is_listed_by_status_and_used_by_explain_after_a_download(tool, tmp_path, v4):
    path = str(tmp_path / "indexed.store")
    created = create(tool, path, "--service", v4.service_root, "--index", "TravelagencyCollection:city",
                     "--index", "TravelagencyCollection:country,name")
    assert created.returncode == 0, created.stderr
    assert "2 indexes" in created.stdout
    assert tool("download", path).returncode == 0
    status = json.loads(tool("status", path, "--json").stdout)
    assert [(i["entitySet"], i["properties"], i["origin"], i["reason"]) for i in status["indexes"]] == [
        ("TravelagencyCollection", ["city"], "declared", "declared by the app"),
        ("TravelagencyCollection", ["country", "name"], "declared", "declared by the app")]
    text = tool("status", path).stdout
    assert "indexes: 2" in text and "country,name" in text
    explained = json.loads(tool("explain", path, CITY_READ, "--json").stdout)
    assert any("USING INDEX es/TravelagencyCollection/index/city (city=?)" in step for step in explained["plan"])
    assert "plan: SEARCH t0 USING INDEX es/TravelagencyCollection/index/city" in tool("explain", path, CITY_READ).stdout
    # The answer is the service's, in the service's (key) order.
    local = json.loads(tool("request", path, CITY_READ).stdout)["value"]
    remote = json.loads(tool("request", path, "--mode", "online", CITY_READ).stdout)["value"]
    assert [a["agencynum"] for a in local] == [a["agencynum"] for a in remote] and local


def test_a_range_on_the_key_reads_the_key_index_in_key_order(tool, tmp_path, v4):
    path = str(tmp_path / "keyed.store")
    assert create(tool, path, "--service", v4.service_root).returncode == 0
    assert tool("download", path).returncode == 0
    read = "TravelagencyCollection?$filter=agencynum gt '00000010' and agencynum lt '00000030'&$top=3"
    explained = json.loads(tool("explain", path, read, "--json").stdout)
    assert explained["plan"] == ["SEARCH t0 USING INDEX es/TravelagencyCollection/key (agencynum>? AND agencynum<?)"]
    local = [a["agencynum"] for a in json.loads(tool("request", path, read).stdout)["value"]]
    remote = [a["agencynum"] for a in json.loads(tool("request", path, "--mode", "online", read + "&$orderby=agencynum").stdout)["value"]]
    assert local == remote == sorted(local) and len(local) == 3


@pytest.mark.parametrize("index, words, code", [
    ("TravelagencyCollection:mayor", "no stored property 'mayor'", 1),
    ("Nowhere:city", "no entity set 'Nowhere'", 1),
    ("TravelagencyCollection:city,city", "named twice", 1),
    ("TravelagencyCollection", "--index takes SET:PROP[,PROP...]", 64),
])
def test_a_bad_index_is_refused_and_no_store_is_left(tool, tmp_path, index, words, code):
    path = tmp_path / "bad.store"
    result = create(tool, str(path), "--index", index)
    assert result.returncode == code
    assert words in result.stderr
    assert not path.exists()


def test_index_needs_metadata(tool, tmp_path):
    result = tool("store", "create", str(tmp_path / "x.store"), "--index", "TravelagencyCollection:city")
    assert result.returncode == 64 and "need --metadata" in result.stderr


def test_reads_that_repeat_get_an_automatic_index_after_the_next_download(tool, tmp_path, v4):
    path = str(tmp_path / "auto.store")
    assert create(tool, path, "--service", v4.service_root).returncode == 0
    assert tool("download", path).returncode == 0
    read = "TravelagencyCollection?$filter=city eq 'Rome'"
    answer = tool("request", path, read).stdout
    for _ in range(9):  # ten reads of the shape in all, each in a process of its own
        assert tool("request", path, read).returncode == 0
    assert json.loads(tool("status", path, "--json").stdout)["indexes"] == []
    assert "index/city" not in tool("explain", path, read).stdout
    assert tool("download", path).returncode == 0
    indexes = json.loads(tool("status", path, "--json").stdout)["indexes"]
    assert [(i["properties"], i["origin"], i["reason"]) for i in indexes] == [
        (["city"], "automatic", "reads filtered or ordered on city 10 times")]
    assert "automatic" in tool("status", path).stdout
    assert "plan: SEARCH t0 USING INDEX es/TravelagencyCollection/index/city (city=?)" in tool("explain", path, read).stdout
    assert tool("request", path, read).stdout == answer


def test_reads_that_repeat_get_an_automatic_index_with_store_indexes_auto_without_a_download(tool, tmp_path, v4):
    path = str(tmp_path / "auto-now.store")
    assert create(tool, path, "--service", v4.service_root).returncode == 0
    assert tool("download", path).returncode == 0
    read = "TravelagencyCollection?$filter=city eq 'Rome'"
    answer = tool("request", path, read).stdout
    for _ in range(9):  # ten reads of the shape in all, each in a process of its own
        assert tool("request", path, read).returncode == 0
    listed = tool("store", "indexes", path, "--json")
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout) == {"made": [], "indexes": []}
    made = tool("store", "indexes", path, "--auto", "--json")
    assert made.returncode == 0, made.stderr
    report = json.loads(made.stdout)
    assert [(i["properties"], i["origin"], i["reason"]) for i in report["made"]] == [
        (["city"], "automatic", "reads filtered or ordered on city 10 times")]
    assert report["indexes"] == report["made"]
    assert "plan: SEARCH t0 USING INDEX es/TravelagencyCollection/index/city (city=?)" in tool("explain", path, read).stdout
    assert tool("request", path, read).stdout == answer
    again = tool("store", "indexes", path, "--auto")
    assert again.returncode == 0 and again.stdout.startswith("made: 0 automatic indexes"), again.stdout
    assert "TravelagencyCollection(city) automatic: reads filtered or ordered on city 10 times" in again.stdout
