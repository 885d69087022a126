"""The request queue's compaction (issue 25): what it merges and what it leaves alone, through the
binding, and random sequences of local changes uploaded to the real test services with and
without it, which must leave each service in the same state with fewer requests.

The random test's size: ``OOD_COMPACTION_SEQUENCES`` (default 500 on V4, a fifth of it on V2) and
``OOD_COMPACTION_SEED`` (default 25); a failure prints the seed and the sequence.
"""
import json
import os
import random
import re
from typing import Any, Dict, List, Optional, Tuple

import pytest

from conftest import US_AGENCIES, backends, recording_proxy
from offline_odata import BusyError, Mode, Options, Store

SET = "TravelagencyCollection"
#: Sequences per store: each has its own keys, so one upload carries many sequences.
PER_STORE = 100
#: Properties the sequences change, with values to draw from.
TEXTS = {"name": ["Alpha", "Beta", "Gamma", "Delta"], "city": ["Boston", "Salem", "Austin", "Reno"],
         "street": ["Main St 1", "Elm St 2", "Oak Ave 3"], "telephone": ["555-0101", "555-0102", "555-0103"]}
KEY = re.compile(rb"9[56]\d{6}")
#: The agency's properties compared on the services (not the key, which differs between the runs,
#: nor the change stamp the service sets).
PROPERTIES = ["name", "street", "postbox", "postcode", "city", "country", "region", "telephone", "url", "langu",
              "currency", "creditlimit"]


def agency(key: str, rng: random.Random) -> Dict[str, Any]:
    """A whole agency with `key`: what a create or a PUT sends."""
    entity: Dict[str, Any] = {"agencynum": key, "country": "US"}
    for name, values in TEXTS.items():
        entity[name] = rng.choice(values) + str(rng.randint(0, 9))
    return entity


# ---- what it does, one case at a time ----------------------------------------------------------


def _offline(path, backend, **options) -> Store:
    store = Store.open(path, service_root=backend.service_root, defining_requests={"Agencies": US_AGENCIES}, **options)
    return store


def test_a_create_and_its_updates_become_one_create_and_a_marked_update_stays(v4, tmp_path):
    with _offline(tmp_path / "a.store", v4) as store:
        store.create(SET, {"agencynum": "97000001", "name": "One", "country": "US"})
        store.update(f"{SET}('97000001')", {"name": "Two"})
        store.update(f"{SET}('97000001')", {"city": "Reno"}, mergeable=False)
        store.update(f"{SET}('97000001')", {"city": "Salem"})
        assert [q["mergeable"] for q in store.request_queue()] == [True, True, False, True]
        done = store.compact_queue()
        queue = store.request_queue()
        assert [q["method"] for q in queue] == ["POST", "PATCH", "PATCH"]
        assert json.loads(queue[0]["body"]) == {"agencynum": "97000001", "name": "Two", "country": "US"}
        assert done["queued"] == 3 and len(done["dropped"]) == 1 and done["replaced"][0]["id"] == queue[0]["id"]
        assert store.upload() == (3, 0)
    with Store(service_root=v4.service_root, mode=Mode.ONLINE) as online:
        assert online.entity(f"{SET}('97000001')")["name"] == "Two"
        assert online.entity(f"{SET}('97000001')")["city"] == "Salem"


def test_a_create_and_its_delete_disappear_and_the_entity_leaves_the_store(v4, tmp_path):
    with _offline(tmp_path / "b.store", v4) as store:
        store.create(SET, {"agencynum": "97000002", "name": "Gone", "country": "US"})
        store.update(f"{SET}('97000002')", {"name": "Going"})
        store.delete(f"{SET}('97000002')")
        done = store.compact_queue()
        assert done["cancelled"] == [{"entitySet": SET, "entityID": done["cancelled"][0]["entityID"]}]
        assert store.request_queue() == [] and store.check() == []
        assert store.count(f"{SET}?$filter=agencynum eq '97000002'") == 0
        assert store.upload() == (0, 0)


def test_turned_off_the_upload_sends_every_request(v4, tmp_path):
    proxy = recording_proxy.RecordingProxy(v4.service_root)
    try:
        with Store.open(tmp_path / "c.store", service_root=proxy.root, defining_requests={"Agencies": US_AGENCIES},
                        compact_upload_queue=False) as store:
            store.create(SET, {"agencynum": "97000003", "name": "One", "country": "US"})
            store.update(f"{SET}('97000003')", {"name": "Two"})
            before = len(proxy.requests)
            assert store.upload() == (2, 0)
        assert [seen.method for seen in proxy.requests[before:] if seen.method != "GET"] == ["POST", "PATCH"]
    finally:
        proxy.stop()


def test_the_options_and_keywords_are_checked(store_path, v4, tmp_path):
    assert Options().compact_upload_queue is True
    with pytest.raises(TypeError):
        Store.open(store_path, compact_upload_queue=1)
    with _offline(tmp_path / "d.store", v4) as store:
        with pytest.raises(TypeError):
            store.create(SET, {"agencynum": "97000004", "country": "US"}, mergeable="no")
        assert store.request_queue() == []


def test_compaction_waits_for_no_upload(v4, tmp_path):
    path = tmp_path / "e.store"
    with _offline(path, v4) as store:
        lock = open(str(path) + "-upload.lock", "a+")
        try:
            import fcntl
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            with pytest.raises(BusyError):
                store.compact_queue()
        finally:
            lock.close()


# ---- random sequences, with and without compaction ----------------------------------------------


class Sequence:
    """One random sequence of local changes on four agencies (two on the service, two new), as
    groups of (method, slot, body, mergeable) run in order; a group of more than one is a transaction."""

    def __init__(self, seed: int, index: int, v2: bool):
        self.index = index
        rng = random.Random(seed * 1_000_003 + index)
        alive = {0, 1}
        created: set = set()
        self.groups: List[List[Tuple[str, int, Optional[Dict[str, Any]], bool]]] = []
        wanted = rng.randint(2, 9)
        count = 0
        while count < wanted and (alive or len(created) < 2):
            group = []
            for _ in range(rng.choice([2, 3]) if rng.random() < 0.25 else 1):
                slot = rng.randrange(4)
                mergeable = rng.random() > 0.1
                if slot not in alive and slot >= 2 and slot not in created:
                    alive.add(slot)
                    created.add(slot)
                    group.append(("POST", slot, agency("", rng), mergeable))
                elif slot in alive:
                    roll = rng.random()
                    if roll < 0.65:
                        names = rng.sample(sorted(TEXTS), rng.randint(1, 3))
                        body = {name: rng.choice(TEXTS[name] + [None]) if name != "name" else rng.choice(TEXTS[name])
                                for name in names}
                        group.append(("MERGE" if v2 else "PATCH", slot, body, mergeable))
                    elif roll < 0.75:
                        whole = agency("", rng)
                        group.append(("PUT", slot, whole, mergeable))
                    else:
                        alive.discard(slot)
                        group.append(("DELETE", slot, None, mergeable))
            if group:
                self.groups.append(group)
                count += len(group)

    def key(self, prefix: str, slot: int) -> str:
        return f"{prefix}{self.index:04d}{slot:02d}"

    def describe(self) -> str:
        return "; ".join(" + ".join(f"{m} {s} {b} {'' if g else 'unmerged'}" for m, s, b, g in group) for group in self.groups)


def _existing(prefix: str, sequences: List[Sequence]) -> List[Dict[str, Any]]:
    rng = random.Random(7)
    return [agency(sequence.key(prefix, slot), rng) for sequence in sequences for slot in (0, 1)]


def _run(backend, proxy, path, prefix: str, block: List[Sequence], compacts: bool) -> Dict[int, int]:
    """Runs the block's sequences on a store of its own (keys `prefix...`) and uploads; returns the
    change requests the service received, per sequence."""
    first = block[0].key(prefix, 0)[:4]  # the block: PER_STORE sequences from a multiple of it
    with Store.open(path, service_root=proxy.root, compact_upload_queue=compacts,
                    defining_requests={"Mine": f"{SET}?$filter=startswith(agencynum,'{first}')"}) as store:
        store.download()
        order = [(sequence, group) for sequence in block for group in sequence.groups]
        # Sequences interleave (each keeps its own order): groups of other sequences lie between.
        random.Random(block[0].index).shuffle(order)
        by_sequence = {sequence.index: sequence.groups for sequence in block}
        cursors = {index: 0 for index in by_sequence}
        for sequence, _ in order:
            group = by_sequence[sequence.index][cursors[sequence.index]]
            cursors[sequence.index] += 1
            transaction = f"t{sequence.index}-{cursors[sequence.index]}" if len(group) > 1 else None
            for method, slot, body, mergeable in group:
                url = f"{SET}('{sequence.key(prefix, slot)}')"
                if method == "POST":
                    store.create(SET, dict(body, agencynum=sequence.key(prefix, slot)), transaction=transaction,
                                 mergeable=mergeable)
                elif method == "DELETE":
                    store.delete(url, transaction=transaction, mergeable=mergeable)
                else:
                    store.update(url, dict(body, agencynum=sequence.key(prefix, slot)) if method == "PUT" else body,
                                 method=method, transaction=transaction, mergeable=mergeable)
        before = len(proxy.requests)
        outcome = store.upload()
        assert outcome.archived == 0, store.error_archive()[:3]
        assert store.request_queue() == []
    counts: Dict[int, int] = {}
    for seen in proxy.requests[before:]:
        if seen.method in ("GET", "HEAD"):
            continue
        found = KEY.search(seen.path.encode("utf-8")) or KEY.search(seen.body)
        assert found, f"a change request without an agency of the test: {seen.method} {seen.path}"
        index = int(found.group(0)[2:6])
        counts[index] = counts.get(index, 0) + 1
    return counts


def _state(online: Store, prefix: str, block: List[Sequence]) -> Dict[Tuple[int, int], Dict[str, Any]]:
    """The service's agencies of the block, by (sequence, slot), without the change stamp."""
    first = block[0].key(prefix, 0)[:4]  # the block: PER_STORE sequences from a multiple of it
    state = {}
    for entity in online.entities(f"{SET}?$filter=startswith(agencynum,'{first}')"):
        key = entity["agencynum"]
        values = {name: entity.get(name) for name in PROPERTIES}
        state[(int(key[2:6]), int(key[6:8]))] = values
    return state


@pytest.mark.parametrize("kind", ["v4", "v2"])
def test_random_sequences_end_the_same_with_fewer_requests(kind, tmp_path):
    count = int(os.environ.get("OOD_COMPACTION_SEQUENCES", "500"))
    if kind == "v2":
        count = max(count // 5, 1)
    seed = int(os.environ.get("OOD_COMPACTION_SEED", "25"))
    sequences = [Sequence(seed, index, v2=kind == "v2") for index in range(count)]
    # The service's data stays small (odatapy copies its store for every change): each block of
    # sequences starts from the seed, with its own agencies on the service added online.
    server = backends.start_v4(data="small") if kind == "v4" else backends.start_v2(csrf=True, data="small")
    proxy = recording_proxy.RecordingProxy(server.service_root)
    totals = {"96": 0, "95": 0}
    try:
        with Store(service_root=server.service_root, mode=Mode.ONLINE) as online:
            for start in range(0, count, PER_STORE):
                block = sequences[start:start + PER_STORE]
                server.reset()
                for entity in _existing("96", block) + _existing("95", block):
                    online.create(SET, entity)
                compacted = _run(server, proxy, tmp_path / f"on-{start}.store", "96", block, compacts=True)
                plain = _run(server, proxy, tmp_path / f"off-{start}.store", "95", block, compacts=False)
                with_compaction, without = _state(online, "96", block), _state(online, "95", block)
                for sequence in block:
                    for slot in range(4):
                        where = (sequence.index, slot)
                        assert with_compaction.get(where) == without.get(where), (
                            f"seed {seed}, sequence {sequence.index}, slot {slot}: {sequence.describe()}")
                    assert compacted.get(sequence.index, 0) <= plain.get(sequence.index, 0), (
                        f"seed {seed}, sequence {sequence.index} sent more requests compacted: {sequence.describe()}")
                totals["96"] += sum(compacted.values())
                totals["95"] += sum(plain.values())
    finally:
        proxy.stop()
        server.stop()
    print(f"{kind}: {count} sequences (seed {seed}): {totals['96']} requests compacted, {totals['95']} without")
    assert totals["96"] < totals["95"]
