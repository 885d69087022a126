"""The request queue's compaction (issue 25) on a queue of 10,000 generated changes uploaded to the
V4 backend, against the same queue uploaded without it, in the same run: requests sent and upload
time (the median of ROUNDS rounds; each round uploads both from the same store file, the service
reset to its seed before each upload).

Usage: OFFLINE_ODATA_LIBRARY=... PYTHONPATH=bindings/python compaction_upload.py [COUNT] [ROUNDS]

The changes are what an app saving forms makes: transactions of 100 changes (each form a
transaction), each on a dozen travel agencies (some on the service, some created in the form),
creating, updating (PATCH of one to three properties, sometimes a PUT) and deleting them at
random, seeded. Both uploads send one request at a time: with `$batch`, a change set that updates
a synced agency twice sends the second update with the ETag the agency had before the first (the
engine learns the new one only from the answer), which odatapy refuses (412) — compaction merges
most such pairs, so the two sides would not do the same work. The service's agencies after each
upload are compared: they must be the same with and without compaction.
"""
import json
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "Tests" / "backends"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import backends  # noqa: E402
from batch_upload import TimingProxy  # noqa: E402
from bench_figure import report_figure  # noqa: E402
from offline_odata import Mode, Store# noqa: E402

SET = "TravelagencyCollection"
TEXTS = {"name": ["Alpha", "Beta", "Gamma"], "city": ["Boston", "Salem", "Reno"], "street": ["Main St", "Elm St"],
         "telephone": ["555-01", "555-02"]}


def agency(rng: random.Random, key: str) -> dict:
    entity = {"agencynum": key, "country": "US"}
    for name, values in TEXTS.items():
        entity[name] = f"{rng.choice(values)} {rng.randint(0, 99)}"
    return entity


def queue_changes(store: Store, existing: list, count: int, seed: int) -> None:
    """Queues `count` changes in transactions of 100, each on a dozen agencies."""
    rng = random.Random(seed)
    alive = set(existing)
    ever = set(existing)
    queued = 0
    form = 0
    while queued < count:
        transaction = f"form{form}"
        pool = rng.sample(sorted(alive), min(6, len(alive))) + [f"8{form * 6 + i:07d}" for i in range(6)]
        form += 1
        for _ in range(min(100, count - queued)):
            key = rng.choice(pool)
            if key not in alive and key not in ever:
                store.create(SET, agency(rng, key), transaction=transaction)
                alive.add(key)
                ever.add(key)
                queued += 1
                continue
            if key not in alive:
                continue  # deleted in this form
            url = f"{SET}('{key}')"
            roll = rng.random()
            if roll < 0.8:
                names = rng.sample(sorted(TEXTS), rng.randint(1, 3))
                store.update(url, {name: f"{rng.choice(TEXTS[name])} {rng.randint(0, 99)}" for name in names},
                             transaction=transaction)
            elif roll < 0.88:
                store.update(url, agency(rng, key), method="PUT", transaction=transaction)
            else:
                store.delete(url, transaction=transaction)
                alive.discard(key)
            queued += 1


def service_state(root: str) -> dict:
    with Store(service_root=root, mode=Mode.ONLINE) as online:
        return {entity["agencynum"]: {k: v for k, v in entity.items() if k != "ChangedAt"}
                for entity in online.entities(SET)}


def upload(server, proxy: TimingProxy, path: Path, compacts: bool) -> dict:
    server.reset()
    requests_before, batches_before, server_before = proxy.requests, proxy.batches, proxy.server_seconds
    with Store.open(path, service_root=proxy.root, compact_upload_queue=compacts) as store:
        queued = len(store.request_queue())
        start = time.perf_counter()
        outcome = store.upload()
        seconds = time.perf_counter() - start
        left = len(store.request_queue())
        refused = store.error_archive()[:3]
    if outcome.archived or left:
        sys.exit(f"the upload (compaction {'on' if compacts else 'off'}) archived {outcome.archived} and left {left}: {refused}")
    return {"queued": queued, "sent": outcome.sent, "http": proxy.requests - requests_before,
            "batches": proxy.batches - batches_before, "seconds": seconds,
            "server": proxy.server_seconds - server_before, "state": service_state(server.service_root)}


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    folder = Path(tempfile.mkdtemp(prefix="ood-compaction-bench-"))
    server = backends.start_v4(data="small")
    proxy = TimingProxy(server.service_root)
    try:
        template = folder / "template.store"
        with Store.open(template, service_root=server.service_root,
                        defining_requests={"Agencies": f"{SET}?$filter=country eq 'US'"}) as store:
            store.download()
            existing = [entity["agencynum"] for entity in store.entities(f"{SET}?$filter=country eq 'US'")]
            queue_changes(store, existing, count, seed=25)
        results = {True: [], False: []}
        for round_number in range(rounds):
            states = {}
            for compacts in (True, False):
                copy = folder / f"round{round_number}-{'on' if compacts else 'off'}.store"
                shutil.copyfile(template, copy)
                result = upload(server, proxy, copy, compacts)
                states[compacts] = result.pop("state")
                results[compacts].append(result)
            if states[True] != states[False]:
                differing = [key for key in set(states[True]) | set(states[False])
                             if states[True].get(key) != states[False].get(key)]
                sys.exit(f"round {round_number}: the service differs with and without compaction at {differing[:5]}")
        on, off = results[True], results[False]
        median = lambda rows, name: statistics.median(row[name] for row in rows)  # noqa: E731
        print(json.dumps({"compacted": on, "plain": off}))
        print(f"compaction: {on[0]['queued']} queued changes; sent {on[0]['sent']} compacted against {off[0]['sent']} "
              f"({on[0]['sent'] / off[0]['sent']:.2f}x), {on[0]['http']} against {off[0]['http']} HTTP requests")
        print(f"compaction: upload median {median(on, 'seconds'):.2f} s against {median(off, 'seconds'):.2f} s "
              f"({median(on, 'seconds') / median(off, 'seconds'):.2f}x; server {median(on, 'server'):.2f} s against "
              f"{median(off, 'server'):.2f} s), {rounds} rounds; the service ends the same")
        for label, rows in (("compacted", on), ("plain", off)):
            report_figure(f"compaction.{label}.requests", rows[0]["sent"], "requests")
            report_figure(f"compaction.{label}.engine", median(rows, "seconds") - median(rows, "server"), "s")
            report_figure(f"compaction.{label}.server", median(rows, "server"), "s", reference=True)
    finally:
        proxy.stop()
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
