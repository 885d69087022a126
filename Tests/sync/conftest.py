"""Fixtures for the sync tests: the real test backends (odatapy V4, mock-sap V2) and the tool."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "Tests" / "backends"))

import backends  # noqa: E402,F401
from backend_fixtures import v2, v2_server, v4, v4_server, v4_repeatable, v4_repeatable_server  # noqa: E402,F401

FLIGHT = REPOSITORY / "Examples" / "FlightSample"


@pytest.fixture
def tool():
    path = os.environ.get("OOD_TOOL")
    if not path:
        pytest.fail("OOD_TOOL is not set: run these tests through `make test`")

    def run(*arguments):
        return subprocess.run([path, *map(str, arguments)], capture_output=True, text=True, timeout=300)

    return run


@pytest.fixture
def make_store(tool, tmp_path):
    """Creates a store for the flight sample against a backend; returns its path."""

    def make(server, version, *defining):
        path = tmp_path / f"travel-{version}.store"
        arguments = ["store", "create", path, "--metadata", FLIGHT / f"metadata-{version}.xml",
                     "--service", server.service_root]
        for name, url in defining:
            arguments += ["--defining", f"{name}={url}"]
        result = tool(*arguments)
        assert result.returncode == 0, result.stderr
        return path

    return make


def get_json(url: str, v2: bool = False):
    """GET from the service directly (the tests' view of the truth)."""
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def send(url: str, method: str, changes: dict | None = None) -> None:
    """A write on the service directly (someone else's), with If-Match: *."""
    data = json.dumps(changes).encode() if changes is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json", "If-Match": "*"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status in (200, 204)


def status(tool, path):
    result = tool("status", path, "--json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def status_without_sync(tool, path):
    """`status --json` without its "sync" and "resumable" (what a failed download adds to, by
    design: its record, and the pages it kept for resuming)."""
    answer = status(tool, path)
    answer.pop("sync")
    answer.pop("resumable", None)
    return answer


@pytest.fixture
def fault_proxy():
    """Starts fault proxies (Tests/sync/fault_proxy.py) in front of backends; stops them after the test."""
    from fault_proxy import FaultProxy

    started = []

    def start(backend):
        proxy = FaultProxy(backend)
        started.append(proxy)
        return proxy

    yield start
    for proxy in started:
        proxy.stop()


#: The tables where a store records what its syncs did (issue 25): a failed download adds to them,
#: by design, so comparisons of a store's data leave them out (test_sync_observability.py reads them).
SYNC_RECORD_TABLES = {"ood_download_statistics", "ood_upload_statistics", "ood_sync_log"}


def visible(tables: dict) -> dict:
    """`store_tables` without the pages a download in progress keeps (readers never see those)."""
    return {name: rows for name, rows in tables.items() if name not in ("ood_download_page", "ood_download_resume")}


def store_tables(path) -> dict:
    """Every table of a store but the sync record, as sorted rows with every column (the `_ood_`
    system columns too)."""
    connection = sqlite3.connect(path)
    try:
        names = [name for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        return {name: sorted(connection.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)
                for name in names if name not in SYNC_RECORD_TABLES}
    finally:
        connection.close()
