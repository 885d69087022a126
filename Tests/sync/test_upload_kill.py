"""kill -9 at random moments during uploads (issue 19): whatever moment the process dies, the
service ends with every local change applied exactly once.

Each configuration (one request at a time or `$batch`; a service without and with repeatable
requests) queues creates, updates and deletes, then starts `offline-odata upload` and kills it with
SIGKILL after a random delay, again and again (queueing another round of changes when an upload
got through first), until the kills have landed; then one upload runs to the end. The service's
final state is then compared with the changes: each create there once, each update's last
values, each deleted entity gone, nothing else, and the store's queue and error archive empty.

`make test` runs OOD_UPLOAD_KILLS kills per configuration (default 8: 32 in all); set it higher
for a longer campaign (`OOD_UPLOAD_KILLS=100 make pytest-sync`).
"""
from __future__ import annotations

import json
import os
import random
import time
import urllib.request

import pytest

from conftest import get_json, status
from test_faults import offline, start_tool
from test_upload_exactly_once import agencies_named, make_store_from_service, repeatable  # noqa: F401

KILLS = int(os.environ.get("OOD_UPLOAD_KILLS", "8"))


def queue_changes(tool, store, keyless: int, round_: int, expected: dict) -> None:
    """Queues one round of the campaign's changes and adds to `expected` what the service must
    hold afterwards (a later round's update of an entity replaces an earlier one's)."""
    for number in range(1, 6):
        key = f"9{round_:03d}{number:04d}"
        name = f"Killed Create {round_}-{number}"
        offline(tool, store, "POST", "TravelagencyCollection",
                json.dumps({"agencynum": key, "name": name, "city": "Rome", "country": "IT", "currency": "EUR"}))
        expected["created"].append(name)
    for number in range(1, keyless + 1):
        name = f"Killed Keyless {round_}-{number}"
        offline(tool, store, "POST", "TravelagencyCollection", json.dumps({"name": name, "city": "Oslo", "country": "NO"}))
        expected["created"].append(name)
    for number in range(1, 7):
        key = f"{number:08d}"
        name = f"Killed Update {round_}-{number}"
        offline(tool, store, "PATCH", f"TravelagencyCollection('{key}')", json.dumps({"name": name}))
        expected["updated"][key] = name
    # A second change of the same entity: only its last value may remain, applied in order.
    offline(tool, store, "PATCH", "TravelagencyCollection('00000002')", json.dumps({"city": f"Second Change {round_}"}))
    expected["city"] = f"Second Change {round_}"
    for number in range(30 + 3 * round_, min(33 + 3 * round_, 41)):
        key = f"{number:08d}"
        offline(tool, store, "DELETE", f"TravelagencyCollection('{key}')")
        expected["deleted"].append(key)


def campaign(tool, store, options, seed: int, keyless: int, kills_wanted: int = KILLS) -> tuple[dict, int, int]:
    """Kills uploads at random moments until `kills_wanted` kills have landed, queueing another
    round of changes whenever an upload got through the queue first, then lets one upload complete.
    Returns what the service must hold, the kills and the uploads run."""
    generator = random.Random(seed)
    expected: dict = {"created": [], "updated": {}, "deleted": []}
    rounds = 0
    kills = 0
    runs = 0
    in_doubt = 0  # requests a kill left in doubt (sent, answer not recorded), summed over the kills
    span = 0.35  # kills come at a random moment in the first `span` seconds of an upload
    while kills < kills_wanted and runs < 6 * kills_wanted:
        if not status(tool, store)["queue"]:
            queue_changes(tool, store, keyless, rounds, expected)
            rounds += 1
        runs += 1
        started = time.monotonic()
        process = start_tool("upload", store, *options)
        time.sleep(generator.uniform(0.005, span))
        if process.poll() is not None:
            # It ended before the kill: through the queue, or stopped by an error (the next run goes
            # on). Kill sooner from now on: the moments worth trying lie within an upload's span.
            process.communicate(timeout=30)
            span = max(0.02, min(span, 0.8 * (time.monotonic() - started)))
            continue
        process.kill()
        process.communicate(timeout=30)
        kills += 1
        in_doubt += sum(1 for request in status(tool, store)["queue"] if request["state"] == "inDoubt")
    assert kills == kills_wanted, f"only {kills} of {kills_wanted} kills landed in {runs} uploads"
    for _ in range(3):
        runs += 1
        finished = tool("upload", store, *options)
        if finished.returncode == 0:
            print(f"{kills} kills in {runs} uploads, {in_doubt} requests left in doubt by them")
            return expected, kills, runs
    raise AssertionError(f"no upload completed after the kills: {finished.stderr}")


def agency_count(server) -> int:
    return get_json(server.service_root + "TravelagencyCollection?$count=true&$top=0")["@odata.count"]


def check_service(server, store_status, expected, seed_count: int) -> None:
    assert store_status["queue"] == []
    assert store_status["errorArchive"] == [], store_status["errorArchive"]
    for name in expected["created"]:
        assert len(agencies_named(server, name)) == 1, name
    for key, name in expected["updated"].items():
        assert get_json(server.service_root + f"TravelagencyCollection('{key}')")["name"] == name
    assert get_json(server.service_root + "TravelagencyCollection('00000002')")["city"] == expected["city"]
    for key in expected["deleted"]:
        try:
            get_json(server.service_root + f"TravelagencyCollection('{key}')")
            raise AssertionError(f"{key} is still on the service")
        except urllib.error.HTTPError as error:
            assert error.code == 404
    assert agency_count(server) == seed_count + len(expected["created"]) - len(expected["deleted"])


@pytest.mark.parametrize("batch", [False, True], ids=["single", "batch"])
def test_kill_9_during_uploads_to_a_service_without_repeatable_requests(batch, tool, make_store, v4):
    store = make_store(v4, "v4", ("Agencies", "TravelagencyCollection"))
    assert tool("download", store).returncode == 0
    seed_count = agency_count(v4)
    # Creates with their key only: a keyless create whose answer is lost is the user's to decide
    # (test_upload_exactly_once), which a campaign without a user cannot do.
    options = ["--batch", "--batch-size", "3"] if batch else []
    expected, kills, runs = campaign(tool, store, options, seed=19 + int(batch), keyless=0)
    check_service(v4, status(tool, store), expected, seed_count)


@pytest.mark.parametrize("batch", [False, True], ids=["single", "batch"])
def test_kill_9_during_uploads_to_a_service_with_repeatable_requests(batch, tool, tmp_path, repeatable, fault_proxy):
    proxy = fault_proxy(repeatable)  # the store talks to the service through the proxy, untouched
    store = make_store_from_service(tool, tmp_path, repeatable, proxy)
    seed_count = agency_count(repeatable)
    options = ["--batch", "--batch-size", "3"] if batch else []
    expected, kills, runs = campaign(tool, store, options, seed=29 + int(batch), keyless=4)
    check_service(repeatable, status(tool, store), expected, seed_count)
