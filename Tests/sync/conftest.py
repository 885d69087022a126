"""Fixtures for the sync tests: the real test backends (odatapy V4, mock-sap V2) and the tool."""
from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
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
def keyed_tool(tmp_path, monkeypatch):
    """The tool with a raw key for every command (`--key-file`), for the campaigns over encrypted
    stores: OOD_TOOL becomes a script that runs the tool with the key file (by `exec`, so a kill of
    the process started is a kill of the tool), and OOD_SYNC_STORE_KEY holds the key for the tests'
    own reads (store_database). A store it creates is encrypted. Returns a runner as `tool` does."""
    binary = os.environ.get("OOD_TOOL")
    if not binary:
        pytest.fail("OOD_TOOL is not set: run these tests through `make test`")
    key = "5a" * 16 + "a5" * 16
    key_file = tmp_path / "store.key"
    key_file.write_text(key + "\n")
    script = tmp_path / "offline-odata-with-key"
    script.write_text(f'#!/bin/sh\nexec "{binary}" --key-file "{key_file}" "$@"\n')
    script.chmod(0o755)
    monkeypatch.setenv("OOD_TOOL", str(script))
    monkeypatch.setenv(STORE_KEY_VARIABLE, key)

    def run(*arguments):
        return subprocess.run([str(script), *map(str, arguments)], capture_output=True, text=True, timeout=300)

    run.binary = binary  # the tool itself, without the key
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
    with store_database(path) as connection:
        names = [name for (name,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")]
        return {name: sorted(connection.execute(f'SELECT * FROM "{name}"').fetchall(), key=repr)
                for name in names if name not in SYNC_RECORD_TABLES}


#: The raw key (64 hex digits) of the campaigns over encrypted stores (test_encrypted_kill.py): the
#: `keyed_tool` fixture sets it, and the tests' own reads of a store's tables decrypt with it.
STORE_KEY_VARIABLE = "OOD_SYNC_STORE_KEY"
SQLITE_MAGIC = b"SQLite format 3\0"


def is_encrypted(path) -> bool:
    """A store file that is not plain SQLite (docs/ENCRYPTION.md: its own header)."""
    with open(path, "rb") as file:
        return file.read(len(SQLITE_MAGIC)) != SQLITE_MAGIC


@contextlib.contextmanager
def store_database(path):
    """An sqlite3 connection to a store's tables: the file itself when it is plain; for an encrypted
    one, a plaintext copy made by the independent reader (Tests/encryption) with the key of
    OOD_SYNC_STORE_KEY, its committed WAL frames applied. Only for a store no process writes."""
    if not is_encrypted(path):
        connection = sqlite3.connect(path)
        try:
            yield connection
        finally:
            connection.close()
        return
    key = os.environ.get(STORE_KEY_VARIABLE)
    assert key, f"{path} is encrypted and {STORE_KEY_VARIABLE} holds no key"
    spec = importlib.util.spec_from_file_location(
        "independent_reader", REPOSITORY / "Tests" / "encryption" / "independent_reader.py")
    reader = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(reader)
    with tempfile.TemporaryDirectory() as folder:
        plain = os.path.join(folder, "plain.db")
        reader.decrypt_store(str(path), plain, raw_key=bytes.fromhex(key))
        connection = sqlite3.connect(plain)
        try:
            yield connection
        finally:
            connection.close()
