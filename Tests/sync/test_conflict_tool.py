"""Conflicts through the tool (issue 37), against the real V4 and V2 services: `store config
--conflicts`, `upload --conflicts`, and what `archive --json` / `archive --discarded --json` show
(the service's entity beside the original values and the change, and who changed what)."""
from __future__ import annotations

import http.cookiejar
import json
import urllib.request

import pytest

from conftest import get_json
from test_faults import offline

KEY = "00000001"
URL = f"TravelagencyCollection('{KEY}')"


def served(server, v2: bool) -> dict:
    document = get_json(server.service_root + URL)
    return document["d"] if v2 else document


def change_on_service(server, v2: bool, changes: dict) -> None:
    """Another writer's change: with If-Match: *, and for V2 (CSRF on) a fetched token."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    headers = {"Content-Type": "application/json", "If-Match": "*", "Accept": "application/json"}
    if v2:
        fetch = urllib.request.Request(server.service_root, headers={"X-CSRF-Token": "Fetch", "Accept": "application/json"})
        with opener.open(fetch, timeout=30) as response:
            headers["X-CSRF-Token"] = response.headers["X-CSRF-Token"]
    request = urllib.request.Request(server.service_root + URL, data=json.dumps(changes).encode(), method="PATCH",
                                     headers=headers)
    with opener.open(request, timeout=30) as response:
        assert response.status in (200, 204)


@pytest.fixture(params=["v4", "v2"])
def scene(request, tool, make_store):
    version = request.param
    server = request.getfixturevalue(version)
    store = make_store(server, version, ("Agencies", "TravelagencyCollection"))
    assert tool("download", store).returncode == 0
    return server, store, version == "v2"


def test_archive_json_shows_the_three_versions(scene, tool):
    server, store, v2 = scene
    original = served(server, v2)["name"]
    offline(tool, store, "PATCH", URL, json.dumps({"name": "Tool Local"}))
    change_on_service(server, v2, {"name": "Tool Service", "city": "Tool City"})
    uploaded = tool("upload", store, "--json")
    assert uploaded.returncode == 3, uploaded.stderr
    assert json.loads(uploaded.stdout)["archived"] == 1
    entry = json.loads(tool("archive", store, "--json").stdout)["errorArchive"][0]
    assert entry["kind"] == "conflict" and entry["httpStatus"] == 412
    conflict = entry["conflict"]
    assert conflict["original"]["name"] == original
    assert conflict["local"] == {"name": "Tool Local"}
    assert conflict["served"]["name"] == "Tool Service"
    changed = {change["name"]: change["changedBy"] for change in conflict["properties"]}
    assert changed["name"] == "both" and changed["city"] == "service"
    text = tool("archive", store)
    assert "who changed what" in text.stdout and "(both)" in text.stdout


def test_upload_conflicts_and_store_config(scene, tool):
    server, store, v2 = scene
    offline(tool, store, "PATCH", URL, json.dumps({"name": "Tool Dropped"}))
    change_on_service(server, v2, {"name": "Tool Kept"})
    uploaded = tool("upload", store, "--conflicts", "server-wins", "--json")
    assert uploaded.returncode == 0, uploaded.stderr
    assert json.loads(uploaded.stdout)["discarded"] == 1
    assert served(server, v2)["name"] == "Tool Kept"
    dropped = json.loads(tool("archive", store, "--discarded", "--json").stdout)["discardedChanges"]
    assert [change["local"] for change in dropped] == [{"name": "Tool Dropped"}]
    assert json.loads(tool("archive", store, "--clear-discarded", "--json").stdout) == {"cleared": 1}

    configured = tool("store", "config", store, "--conflicts", "client-wins", "--entity-set", "TravelagencyCollection", "--json")
    assert configured.returncode == 0, configured.stderr
    assert json.loads(configured.stdout) == {"conflicts": {"default": "archive",
                                                           "entitySets": {"TravelagencyCollection": "clientWins"}},
                                             "alternateKeys": {}}
    offline(tool, store, "PATCH", URL, json.dumps({"name": "Tool Wins"}))
    change_on_service(server, v2, {"name": "Tool Loses"})
    assert tool("upload", store).returncode == 0
    assert served(server, v2)["name"] == "Tool Wins"

    assert tool("store", "config", store, "--conflicts", "sometimes").returncode == 64
    assert tool("upload", store, "--conflicts", "sometimes").returncode == 64
    unknown = tool("store", "config", store, "--conflicts", "merge", "--entity-set", "NoSuchSet")
    assert unknown.returncode == 1 and "NoSuchSet" in unknown.stderr
