"""Honest store files (issue 21) through the binding: an empty file is refused by name until
accepted, `Store.check` reports what is wrong, and a write-protected store answers reads and
says "read-only" to writes."""
from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import textwrap

import pytest

from offline_odata import EventKind, NotAStoreError, Store
from conftest import REPOSITORY, US_AGENCIES

AGENCIES = {"Agencies": US_AGENCIES}
AGENCY = {"agencynum": "99000401", "name": "Honest Py", "city": "Boston", "country": "US"}


def test_an_empty_file_is_refused_by_name_until_accepted(v4, tmp_path):
    path = tmp_path / "empty.store"
    path.write_bytes(b"")
    with pytest.raises(NotAStoreError) as refused:
        Store.open(path, service_root=v4.service_root, defining_requests=AGENCIES)
    assert f"'{path}' is not an OfflineOData store: it is an empty file (0 bytes)" in str(refused.value)
    assert "accept_empty_file=True" in str(refused.value)
    assert path.stat().st_size == 0
    with Store.open(path, service_root=v4.service_root, defining_requests=AGENCIES, accept_empty_file=True) as store:
        assert len(store.get(US_AGENCIES)) > 0  # made and downloaded
    with pytest.raises(TypeError):
        Store.open(tmp_path / "other.store", accept_empty_file="yes")


def test_check_finds_a_sound_store_sound_and_a_queued_request_without_its_entity(v4, tmp_path):
    path = tmp_path / "checked.store"
    with Store.open(path, service_root=v4.service_root, defining_requests=AGENCIES) as store:
        store.create("TravelagencyCollection", AGENCY)
        assert store.check() == []
        assert store.check(quick=True) == []
        with sqlite3.connect(path) as connection:
            connection.execute('DELETE FROM "es/TravelagencyCollection" WHERE agencynum = ?', (AGENCY["agencynum"],))
        findings = store.check()
        assert [finding["check"] for finding in findings] == ["queue"]
        assert "POST TravelagencyCollection" in findings[0]["message"]
        with pytest.raises(TypeError):
            store.check(quick="yes")


#: Run in a child process as a user bound by file modes: opens the store, reads, then tries a write.
READ_ONLY_CHILD = textwrap.dedent("""
    import json, sys
    from offline_odata import Store, StorageError
    with Store.open(sys.argv[1]) as store:
        out = {"queue": len(store.request_queue()), "status": store.status()["queuedRequests"],
               "read": len(store.get("TravelagencyCollection?$filter=agencynum eq '99000401'")),
               "check": store.check()}
        try:
            store.create("TravelagencyCollection", {"agencynum": "99000402", "name": "No"})
            out["write"] = "accepted"
        except StorageError as error:
            out["write"] = str(error)
    print(json.dumps(out))
""")


@pytest.mark.parametrize("folder_too", [False, True], ids=["file", "file-and-folder"])
def test_a_write_protected_store_answers_reads_and_says_read_only_to_writes(v4, folder_too):
    python = shutil.which("python3", path="/usr/bin:/bin")
    if os.geteuid() == 0 and (python is None or shutil.which("setpriv") is None):
        pytest.skip("running as root without /usr/bin/python3 and setpriv to drop to a user bound by file modes")
    folder = tempfile.mkdtemp(prefix="ood-readonly-")
    os.chmod(folder, 0o755)
    try:
        path = os.path.join(folder, "ro.store")
        with Store.open(path, service_root=v4.service_root, defining_requests=AGENCIES) as store:
            store.create("TravelagencyCollection", AGENCY)
        os.chmod(path, 0o444)
        if folder_too:
            os.chmod(folder, 0o555)
        argv = [python or sys.executable, "-c", READ_ONLY_CHILD, path]
        if os.geteuid() == 0:
            argv = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", *argv]
        environment = dict(os.environ, PYTHONPATH=os.path.join(REPOSITORY, "bindings", "python"))
        child = subprocess.run(argv, capture_output=True, text=True, timeout=120, env=environment)
        assert child.returncode == 0, child.stderr
        out = json.loads(child.stdout)
        assert out["queue"] == 1 and out["status"] == 1 and out["read"] == 1 and out["check"] == []
        assert f"'{path}' is read-only" in out["write"]
    finally:
        os.chmod(folder, 0o755)
        shutil.rmtree(folder, ignore_errors=True)


def crash_copy(path, copy) -> None:
    """Copies a store while it is open, its write-ahead log holding the last changes: what a
    process killed at that moment leaves."""
    for suffix in ("", "-wal"):
        shutil.copyfile(f"{path}{suffix}", f"{copy}{suffix}")


def test_a_store_left_open_is_quick_checked_and_reported_by_an_event(v4, tmp_path):
    path = tmp_path / "running.store"
    copy = tmp_path / "crashed.store"
    with Store.open(path, service_root=v4.service_root, defining_requests=AGENCIES) as store:
        store.create("TravelagencyCollection", AGENCY)
        crash_copy(path, copy)
    with Store.open(copy, wait=False, service_root=v4.service_root, defining_requests=AGENCIES) as reopened:
        with reopened.subscribe() as events:
            reopened.wait_until_open()
            event = events.wait_for(EventKind.UNCLEAN_SHUTDOWN_CHECKED, timeout=30)
        assert event.details == {"findings": []}
        assert len(reopened.request_queue()) == 1
    assert not os.path.exists(f"{copy}-wal")  # closed cleanly now: the next open has nothing to check
