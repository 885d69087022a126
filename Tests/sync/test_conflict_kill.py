"""kill -9 during conflict resolution (issue 37): nothing lost, nothing applied twice.

Each round the store downloads, changes six agencies offline, and another writer changes the same
six on the service, so every queued request meets a conflict (412) and is resolved by the store's
policy (set with `offline-odata store config --conflicts`): the upload reads the service's entity,
decides, and writes its decision in one transaction, then (client-wins, merge) sends again. The
upload is killed with SIGKILL at random moments, again and again (a new round when an upload got
through first), then one upload runs to the end. Checked on the real V4 service (odatapy counts
every applied write in its ETag, W/"n"):

- client-wins, merge: each agency holds the last round's local values (and, merged, the writer's
  other field), and its ETag counts exactly two writes a round: the writer's and the store's, so no
  change was applied twice nor lost;
- server-wins: each agency holds the writer's values, its ETag counts one write a round, and the
  store recorded each dropped change exactly once (`archive --discarded`).

`make test` runs OOD_CONFLICT_KILLS kills per policy (default 4); `make kill-conflicts` runs 30 each.
"""
from __future__ import annotations

import json
import os
import random
import time

import pytest

from conftest import get_json, send, status
from test_faults import offline, start_tool

KILLS = int(os.environ.get("OOD_CONFLICT_KILLS", "4"))
KEYS = [f"{number:08d}" for number in range(1, 7)]


def version(server, key: str) -> int:
    """The odatapy version counter in the agency's ETag (W/"n"): how many writes it took."""
    etag = get_json(server.service_root + f"TravelagencyCollection('{key}')")["@odata.etag"]
    return int(etag.strip('W/"'))


def conflicting_round(tool, store, server, policy: str, round_: int, expected: dict) -> None:
    """Brings the store up to date, then changes every agency both offline and on the service."""
    assert tool("download", store).returncode == 0
    for number, key in enumerate(KEYS, 1):
        local = {"city": f"L{round_}-{number}"} if policy == "merge" else {"name": f"L{round_}-{number}"}
        offline(tool, store, "PATCH", f"TravelagencyCollection('{key}')", json.dumps(local))
        writer = {"street": f"W{round_}-{number}"} if policy == "merge" else {"name": f"W{round_}-{number}"}
        send(server.service_root + f"TravelagencyCollection('{key}')", "PATCH", writer)
        wins = writer if policy == "server-wins" else {**writer, **local}
        expected["values"][key].update(wins)
        expected["writes"][key] += 1 if policy == "server-wins" else 2
    expected["changes"] += len(KEYS)


@pytest.mark.parametrize("policy", ["client-wins", "server-wins", "merge"])
def test_kill_9_during_conflict_resolution(policy, tool, make_store, v4):
    store = make_store(v4, "v4", ("Agencies", "TravelagencyCollection"))
    configured = tool("store", "config", store, "--conflicts", policy, "--json")
    assert configured.returncode == 0, configured.stderr
    assert json.loads(configured.stdout)["conflicts"]["default"] in ("clientWins", "serverWins", "mergeChangedFields")
    expected = {"values": {key: {} for key in KEYS}, "writes": {key: version(v4, key) for key in KEYS}, "changes": 0}
    generator = random.Random(37 + len(policy))
    kills = runs = rounds = 0
    span = 0.6  # kills come at a random moment in the first `span` seconds of an upload
    while kills < KILLS and runs < 6 * KILLS:
        if not status(tool, store)["queue"]:
            rounds += 1
            conflicting_round(tool, store, v4, policy, rounds, expected)
        runs += 1
        started = time.monotonic()
        process = start_tool("upload", store)
        time.sleep(generator.uniform(0.01, span))
        if process.poll() is not None:
            process.communicate(timeout=30)
            span = max(0.03, min(span, 0.8 * (time.monotonic() - started)))
            continue
        process.kill()
        process.communicate(timeout=30)
        kills += 1
    assert kills == KILLS, f"only {kills} of {KILLS} kills landed in {runs} uploads"
    finished = tool("upload", store, "--json")
    assert finished.returncode == 0, finished.stderr + finished.stdout
    print(f"{policy}: {kills} kills in {runs} uploads over {rounds} rounds")

    final = status(tool, store)
    assert final["queue"] == [] and final["errorArchive"] == [], final["errorArchive"]
    for key in KEYS:
        served = get_json(v4.service_root + f"TravelagencyCollection('{key}')")
        assert {field: served[field] for field in expected["values"][key]} == expected["values"][key], key
        # Each write the service took is counted: none twice, none missing.
        assert version(v4, key) == expected["writes"][key], key
    discarded = json.loads(tool("archive", store, "--discarded", "--json").stdout)["discardedChanges"]
    if policy == "server-wins":
        # Every dropped change is on record, once.
        assert len(discarded) == expected["changes"]
        assert len({change["requestID"] for change in discarded}) == expected["changes"]
        assert all(change["served"] and change["local"] for change in discarded)
    else:
        assert discarded == []
