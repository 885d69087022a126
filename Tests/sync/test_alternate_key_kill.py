"""kill -9 during uploads of keyless creates on a set with an alternate key (issue 37, point 4):
every create on the service exactly once, none left "needs decision".

odatapy assigns TravelagencyCollection's keys (`--autokey`) and takes no repeatable requests, so a
create whose answer a kill lost can only be found again by another key: `name`, declared by the
model (`Core.AlternateKeys`, odatapy's `--alternate-key`) or by the app (`store config
--alternate-key`). Each round queues keyless creates with unique names (and an update of each,
which follows the create to the key the service gives it); the upload is killed with SIGKILL at
random moments, again and again (a new round when an upload got through first), then one upload
runs to the end. Then every name is on the service exactly once with its update, the service
holds no other new agency, the store holds each under the service's key, and the queue and the
error archive are empty.

`make test` runs OOD_ALTERNATE_KEY_KILLS kills per configuration (default 4);
`make kill-alternate-keys` runs 30 each.
"""
from __future__ import annotations

import json
import os
import random
import time

import pytest

from conftest import get_json, status, store_database
from test_alternate_key_creates import store_with_service_model, v4_named, v4_named_server  # noqa: F401
from test_faults import offline, start_tool
from test_upload_exactly_once import agencies_named

KILLS = int(os.environ.get("OOD_ALTERNATE_KEY_KILLS", "4"))
PER_ROUND = 4


def agency_count(server) -> int:
    return get_json(server.service_root + "TravelagencyCollection?$count=true&$top=0")["@odata.count"]


def queue_round(tool, store, round_: int, names: list[str]) -> None:
    for number in range(1, PER_ROUND + 1):
        name = f"Keyless Kill {round_}-{number}"
        made = tool("request", store, "--method", "POST", "TravelagencyCollection", "--body",
                    json.dumps({"name": name, "city": "Oslo", "country": "NO"}))
        assert made.returncode == 0, made.stderr
        created = json.loads(made.stdout)["agencynum"]
        assert created.startswith("~")  # provisional: the service assigns the key
        names.append(name)
        offline(tool, store, "PATCH", f"TravelagencyCollection('{created}')", json.dumps({"city": f"Updated {name}"}))


@pytest.mark.parametrize("declared_by, options", [("model", []), ("app", []), ("model", ["--batch", "--batch-size", "3"])],
                         ids=["model-single", "app-single", "model-batch"])
def test_kill_9_during_keyless_creates_on_a_set_with_an_alternate_key(declared_by, options, tool, tmp_path, v4_named):
    store = store_with_service_model(tool, tmp_path, v4_named, v4_named)
    if declared_by == "app":
        # The app's own declaration (the model's is there too, but the app's comes first).
        assert tool("store", "config", store, "--alternate-key", "TravelagencyCollection=name,country").returncode == 0
    seed_count = agency_count(v4_named)
    generator = random.Random(370 + len(declared_by) + len(options))
    names: list[str] = []
    kills = runs = rounds = 0
    in_doubt_creates: set[int] = set()  # the creates a kill left in doubt (sent, answer not recorded)
    span = 0.35  # kills come at a random moment in the first `span` seconds of an upload
    while kills < KILLS and runs < 8 * KILLS:
        if not status(tool, store)["queue"]:
            rounds += 1
            queue_round(tool, store, rounds, names)
        runs += 1
        started = time.monotonic()
        process = start_tool("upload", store, "--no-compact", *options)
        time.sleep(generator.uniform(0.005, span))
        if process.poll() is not None:
            process.communicate(timeout=30)
            span = max(0.02, min(span, 0.8 * (time.monotonic() - started)))
            continue
        process.kill()
        process.communicate(timeout=30)
        kills += 1
        in_doubt_creates |= {request["id"] for request in status(tool, store)["queue"]
                             if request["state"] == "inDoubt" and request["method"] == "POST"}
    assert kills == KILLS, f"only {kills} of {KILLS} kills landed in {runs} uploads"
    finished = tool("upload", store, "--json")
    assert finished.returncode == 0, finished.stderr + finished.stdout
    print(f"{declared_by} {' '.join(options) or 'single'}: {kills} kills in {runs} uploads over {rounds} rounds, "
          f"{len(names)} creates, {len(in_doubt_creates)} of them left in doubt by a kill")

    final = status(tool, store)
    assert final["queue"] == [] and final["errorArchive"] == [], final["errorArchive"]
    for name in names:
        served = agencies_named(v4_named, name)
        assert len(served) == 1, (name, served)  # none lost, none twice
        assert served[0]["city"] == f"Updated {name}"
    assert agency_count(v4_named) == seed_count + len(names)
    with store_database(store) as connection:
        keys = [row[0] for row in connection.execute('SELECT agencynum FROM "es/TravelagencyCollection" WHERE name LIKE ?',
                                                     ("Keyless Kill %",))]
    # Each under the key the service gave it: none provisional, none twice.
    assert len(keys) == len(names) and not any(key.startswith("~") for key in keys)
    if KILLS >= 30:
        # The long campaign must have met the case it is about.
        assert in_doubt_creates
