"""Honest store files (issue 21) through the tool: a file that is there is never silently made a
store, a write-protected store answers reads and says "read-only" to writes, and `store check`
reports what is wrong."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess

import pytest

from conftest import REPOSITORY
from unprivileged import protect, release, shared_folder, unprivileged

METADATA = REPOSITORY / "Examples" / "FlightSample" / "metadata-v4.xml"
AGENCY = json.dumps({"agencynum": "99000301", "name": "Honest", "country": "US"})


def create(tool, path, *extra):
    return tool("store", "create", path, "--metadata", METADATA, "--service", "http://127.0.0.1:9/",
                "--defining", "Agencies=TravelagencyCollection", *extra)


def test_an_empty_file_is_refused_by_name_until_accepted(tool, tmp_path):
    path = tmp_path / "empty.store"
    path.write_bytes(b"")
    refused = create(tool, path)
    assert refused.returncode == 1
    assert f"'{path}' is not an OfflineOData store: it is an empty file (0 bytes)" in refused.stderr
    assert "--accept-empty-file" in refused.stderr
    assert path.stat().st_size == 0  # left as it was
    accepted = create(tool, path, "--accept-empty-file")
    assert accepted.returncode == 0, accepted.stderr
    assert tool("store", "info", path).returncode == 0
    # Without --metadata too: the file-level store.
    bare = tmp_path / "bare.store"
    bare.write_bytes(b"")
    assert tool("store", "create", bare).returncode == 1
    assert tool("store", "create", bare, "--accept-empty-file").returncode == 0


def test_status_of_an_empty_file_says_what_it_is(tool, tmp_path):
    path = tmp_path / "empty.store"
    path.write_bytes(b"")
    result = tool("status", path)
    assert result.returncode == 1
    assert "empty file (0 bytes)" in result.stderr and str(path) in result.stderr


def test_store_check_finds_a_sound_store_sound_and_names_what_is_broken(tool, tmp_path):
    path = tmp_path / "checked.store"
    assert create(tool, path).returncode == 0
    assert tool("request", path, "--method", "POST", "TravelagencyCollection", "--body", AGENCY).returncode == 0
    sound = tool("store", "check", path)
    assert sound.returncode == 0, sound.stderr
    assert sound.stdout.strip() == f"{path}: sound"
    assert json.loads(tool("store", "check", path, "--quick", "--json").stdout) == {"sound": True, "findings": []}

    # The queued create loses its entity: the queue no longer matches the tables.
    connection = sqlite3.connect(path)
    with connection:
        connection.execute('DELETE FROM "es/TravelagencyCollection" WHERE agencynum = ?', ("99000301",))
    connection.close()
    broken = tool("store", "check", path, "--json")
    assert broken.returncode == 3, broken.stderr
    answer = json.loads(broken.stdout)
    assert answer["sound"] is False
    findings = answer["findings"]
    assert len(findings) == 1 and findings[0]["check"] == "queue"
    # Exit 3 closes the store first: SQLite removed its write-ahead log, and the next command
    # finds it closed cleanly.
    assert not os.path.exists(f"{path}-wal")
    assert "not closed cleanly" not in tool("status", path).stderr
    assert "queued request #1 (POST TravelagencyCollection)" in findings[0]["message"]
    assert "which the store does not have" in findings[0]["message"]


def test_store_check_of_a_missing_file_is_an_error(tool, tmp_path):
    result = tool("store", "check", tmp_path / "missing.store")
    assert result.returncode == 1 and "does not exist" in result.stderr
    assert not (tmp_path / "missing.store").exists()


@pytest.mark.parametrize("folder_too", [False, True], ids=["file", "file-and-folder"])
def test_a_write_protected_store_answers_reads_and_says_read_only_to_writes(tool, folder_too):
    folder = shared_folder()
    try:
        path = os.path.join(folder, "ro.store")
        assert create(tool, path).returncode == 0
        assert tool("request", path, "--method", "POST", "TravelagencyCollection", "--body", AGENCY).returncode == 0
        protect(path, folder_too)
        binary = os.environ["OOD_TOOL"]

        def run(*arguments):
            return subprocess.run(unprivileged([binary, *arguments]), capture_output=True, text=True, timeout=120)

        status = run("status", path, "--json")
        assert status.returncode == 0, status.stderr
        assert len(json.loads(status.stdout)["queue"]) == 1
        read = run("request", path, "TravelagencyCollection?$filter=agencynum eq '99000301'")
        assert read.returncode == 0 and "Honest" in read.stdout
        assert run("store", "info", path).returncode == 0
        assert run("explain", path, "TravelagencyCollection").returncode == 0
        assert run("store", "check", path).returncode == 0
        for command in (["request", path, "--method", "DELETE", "TravelagencyCollection('99000301')"],
                        ["download", path], ["upload", path]):
            refused = run(*command)
            assert refused.returncode == 1, (command, refused.stdout)
            assert f"'{path}' is read-only" in refused.stderr, (command, refused.stderr)
    finally:
        release(folder)


def test_a_store_left_open_is_quick_checked_and_the_tool_says_so(tool, tmp_path):
    import shutil
    path = tmp_path / "running.store"
    copy = tmp_path / "crashed.store"
    assert create(tool, path).returncode == 0
    # A store open in this process, its last change in the write-ahead log: copied as a kill leaves it.
    with sqlite3.connect(path) as connection:
        connection.execute("PRAGMA wal_autocheckpoint = 0")
        connection.execute("INSERT INTO ood_store_info (key, value) VALUES ('test_note', 'written before the kill')")
        connection.commit()
        assert os.path.getsize(f"{path}-wal") > 0
        for suffix in ("", "-wal"):
            shutil.copyfile(f"{path}{suffix}", f"{copy}{suffix}")
    status = tool("status", copy)
    assert status.returncode == 0, status.stderr
    assert f"note: '{copy}' was not closed cleanly" in status.stderr and "found it sound" in status.stderr
    again = tool("status", copy)
    assert again.returncode == 0 and "not closed cleanly" not in again.stderr
