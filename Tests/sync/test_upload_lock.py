"""One upload at a time per store file (issue 19, point 2), through the tool on the real V4 service.

The first `offline-odata upload` has its first POST held by the fault proxy (`fault_proxy.py`), so
it is surely running while a second `offline-odata upload` of the same store starts: the second
answers busy at once (exit 1), sends nothing (the proxy's log) and changes nothing in the store.
The creates are keyless, so odatapy assigns each a new key: a create sent twice would make two
agencies, and the service must end with each exactly once.
"""
from __future__ import annotations

import json
import time
import urllib.parse

from conftest import get_json, status, store_tables
from test_faults import held, kill, offline, start_tool, wait_until

BUSY = "another upload of this store is running (in this process or another); try again when it has finished"
CITY = "Lockholm"


def queue_keyless_creates(tool, store, count: int) -> None:
    for index in range(1, count + 1):
        body = {"name": f"Lock {index}", "city": CITY, "country": "NO", "currency": "NOK"}
        offline(tool, store, "POST", "TravelagencyCollection", json.dumps(body))


def agencies_on_service(server) -> list[str]:
    """The names of the service's agencies in CITY."""
    url = server.service_root + "TravelagencyCollection?$filter=" + urllib.parse.quote(f"city eq '{CITY}'")
    return sorted(agency["name"] for agency in get_json(url)["value"])


def posts(proxy) -> list[dict]:
    return [entry for entry in proxy.log() if entry["method"] == "POST"]


def test_a_second_upload_of_the_same_store_is_busy_and_sends_nothing(tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = make_store(proxy, "v4")
    queue_keyless_creates(tool, store, 3)
    proxy.add("hold", method="POST", nth=1, seconds=8)

    first = start_tool("upload", store)
    try:
        wait_until(lambda: held(proxy), "the first upload's POST to reach the proxy")
        log_before, tables_before = proxy.log(), store_tables(store)
        started = time.monotonic()
        second = tool("upload", store)
        took = time.monotonic() - started
        assert second.returncode == 1, second.stdout + second.stderr
        assert BUSY in second.stderr, second.stderr
        assert "uploaded:" not in second.stdout
        assert took < 5, took  # at once, not after the first upload
        assert proxy.log() == log_before  # nothing sent: no CSRF fetch, no request
        assert store_tables(store) == tables_before  # nothing changed in the store
        assert len(status(tool, store)["queue"]) == 3
        # A batch upload is refused the same way.
        batch = tool("upload", store, "--batch")
        assert batch.returncode == 1 and BUSY in batch.stderr, batch.stderr
        assert proxy.log() == log_before
    finally:
        out, err = first.communicate(timeout=120)
    assert first.returncode == 0, err
    assert "uploaded: 3 sent, 0 moved to the error archive" in out

    assert agencies_on_service(v4) == ["Lock 1", "Lock 2", "Lock 3"]  # each exactly once
    assert len(posts(proxy)) == 3 and all(entry["forwarded"] for entry in posts(proxy))
    assert status(tool, store)["queue"] == [] and status(tool, store)["errorArchive"] == []
    # The lock went with the first upload: the next one runs (nothing left to send).
    again = tool("upload", store)
    assert again.returncode == 0, again.stderr
    assert "uploaded: 0 sent" in again.stdout


def test_an_upload_killed_while_it_holds_the_lock_leaves_no_stale_lock(tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = make_store(proxy, "v4")
    queue_keyless_creates(tool, store, 3)
    proxy.add("hold", method="POST", nth=1, seconds=60)

    first = start_tool("upload", store)
    try:
        wait_until(lambda: held(proxy), "the first upload's POST to reach the proxy")
        refused = tool("upload", store)
        assert refused.returncode == 1 and BUSY in refused.stderr, refused.stderr
    finally:
        kill(first)  # SIGKILL: no cleanup; the kernel drops its lock
    # The held POST was dropped when its client died: the service never saw it.
    assert agencies_on_service(v4) == []

    # The lock is free. The killed upload's POST was sent and never answered, and the engine
    # cannot find a keyless create on a service without repeatable requests: it is not sent
    # again but archived for the user to decide; the other two go.
    uploaded = tool("upload", store)
    assert uploaded.returncode == 3, uploaded.stderr
    assert "uploaded: 2 sent, 1 moved to the error archive (1 in doubt)" in uploaded.stdout
    assert agencies_on_service(v4) == ["Lock 2", "Lock 3"]  # each exactly once
    assert [entry["forwarded"] for entry in posts(proxy)] == [False, True, True]
    assert status(tool, store)["queue"] == []
    assert [entry["kind"] for entry in status(tool, store)["errorArchive"]] == ["inDoubt"]
