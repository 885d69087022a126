"""Resumable downloads (issue 25): a download killed (kill -9) or cut by a network failure part-way
resumes at the page after the last one it kept, for a full refresh and a delta download, against
the real odatapy V4 service with server-driven paging (`$skiptoken`; its deltas paged by
odatapy_server.py's `--page-deltas`, as odatapy answers a delta in one page), through the fault proxy.

Each campaign checks, against an uninterrupted download of the same service state into a copy of
the store made before it:
- the store ends identical (every table, the last download's time aside);
- readers during the interrupted attempts saw the defining request's previous content or its new
  content, never part of it (a reader polls the store in its own read transactions);
- the pages asked of the service over all attempts stay close to the pages needed: at most two
  more per interruption (the page in flight when it came, and the one fetched ahead of it).

The bounded campaigns run in `make test`; `make resume-campaign` runs the same with 100,000
entities (OOD_RESUME_CAMPAIGN=1) and prints the overhead measured.
"""
from __future__ import annotations

import json
import os
import random
import re
import shutil
import signal
import sqlite3
import threading
import time
import urllib.request

import pytest

import backends
from conftest import get_json, is_encrypted, send, store_database, store_tables
from fault_proxy import FaultProxy
from test_faults import start_tool, wait_until

BOOKINGS = "BookingCollection"  # searched in a request's path and query
STAGING = ("ood_download_page", "ood_download_resume")


# ------------------------------------------------------------------------------------- helpers

def comparable(path) -> dict:
    """Every table as an uninterrupted download leaves it: no download in progress, the last
    download's time left out (it differs from run to run)."""
    tables = store_tables(path)
    for name in STAGING:
        assert tables.pop(name) == [], f"{name} still holds a download in progress"
    assert all(row[4] for row in tables["ood_defining_request"]), "no delta link kept"
    tables["ood_defining_request"] = [row[:3] + row[4:] for row in tables["ood_defining_request"]]
    return tables


def copy_store(path, target) -> None:
    if is_encrypted(path):
        # The closed store's bytes (and a log, if any): the copy opens with the same key.
        for suffix in ("", "-wal"):
            if os.path.exists(f"{path}{suffix}"):
                shutil.copyfile(f"{path}{suffix}", f"{target}{suffix}")
        return
    source, copy = sqlite3.connect(path), sqlite3.connect(target)
    try:
        source.backup(copy)
    finally:
        source.close()
        copy.close()


def kept_pages(path, tool=None) -> int:
    """The pages a download in progress kept; through the tool's `status` when given (an encrypted
    store, read while the Reader's tool processes may checkpoint it)."""
    if tool is not None:
        result = tool("status", path, "--json")
        assert result.returncode == 0, result.stderr
        return sum(download["pages"] for download in json.loads(result.stdout).get("resumable", []))
    with store_database(path) as connection:
        return connection.execute("SELECT count(*) FROM ood_download_page").fetchone()[0]


def kill_at_page_10(store, proxy, *arguments) -> None:
    """A download killed while page 10 travels: 8 or 9 pages kept (the 10th was fetched ahead)."""
    proxy.add("hold", method="GET", match=BOOKINGS, nth=10, seconds=60)
    download = start_tool("download", store, *arguments)
    try:
        wait_until(lambda: any(entry["fault"] == "hold" for entry in proxy.log()), "the download to reach page 10")
    finally:
        kill(download)
    assert kept_pages(store) >= 8
    proxy.clear()


def kill(process) -> str:
    """SIGKILL (no handler, no rollback: only what SQLite committed survives); what it had said on stderr."""
    process.send_signal(signal.SIGKILL)
    _, stderr = process.communicate(timeout=10)
    assert process.returncode == -signal.SIGKILL
    return stderr


def all_bookings(server) -> list[dict]:
    """Every booking as the service has it, following its pages."""
    url, found = server.service_root + "BookingCollection", []
    while url:
        page = get_json(url)
        found += page["value"]
        url = page.get("@odata.nextLink")
    return found


def rename(server, booking: dict, name: str) -> None:
    """Someone else's change on the service: the booking's passenger name."""
    key = "carrid='{carrid}',connid='{connid}',fldate={fldate},bookid='{bookid}'".format(**booking)
    send(server.service_root + f"BookingCollection({key})", "PATCH", {"passname": name})


class Reader(threading.Thread):
    """Polls the store as an app reads it, each look in one read transaction: how many bookings
    it holds and the names of the bookings the test changed on the service."""

    def __init__(self, path, keys: list[tuple], tool=None):
        super().__init__(daemon=True)
        self.path, self.keys, self.tool = str(path), keys, tool
        self.seen: set[tuple] = set()
        self.looks = 0
        self.stop = threading.Event()

    def look(self) -> tuple:
        if self.tool is not None:
            return self.look_through_tool()
        connection = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=30)
        try:
            connection.execute("BEGIN")
            count = connection.execute('SELECT count(*) FROM "es/BookingCollection"').fetchone()[0]
            names = tuple(connection.execute(
                'SELECT passname FROM "es/BookingCollection" WHERE carrid = ? AND connid = ? AND bookid = ?',
                key).fetchone()[0] for key in self.keys)
            connection.execute("COMMIT")
            return (count,) + names
        finally:
            connection.close()

    def look_through_tool(self) -> tuple:
        """One read of every booking through the tool (an encrypted store, which sqlite3 cannot
        open): one offline read, one read transaction."""
        result = self.tool("request", self.path, "BookingCollection?$select=carrid,connid,bookid,passname", "--json")
        assert result.returncode == 0, result.stderr
        bookings = json.loads(result.stdout)["body"]["value"]
        names = {(b["carrid"], b["connid"], b["bookid"]): b["passname"] for b in bookings}
        return (len(bookings),) + tuple(names[key] for key in self.keys)

    def run(self):
        while not self.stop.is_set():
            self.seen.add(self.look())
            self.looks += 1
            time.sleep(0.01)


def interrupted_download(tool, store, proxy, arguments: list[str], needed: int, interruptions: int,
                         how: str, rng: random.Random) -> dict:
    """Runs `download` with `arguments` until it completes, interrupting it `interruptions` times
    at random pages (`how`: "kill" holds a page and kills the tool; "cut" closes the connection
    half-way through a page's answer). Returns the pages asked for and what each
    attempt said."""
    requested, attempts, resumed_at = 0, 0, []
    remaining = needed
    for _ in range(interruptions):
        if remaining < 2:
            break  # nothing left to interrupt after the page in flight: the final download below ends it
        proxy.clear()
        nth = rng.randint(2, max(2, remaining - 1))
        if how == "kill":
            proxy.add("hold", method="GET", match=BOOKINGS, nth=nth, seconds=120)
            download = start_tool("download", store, *arguments)
            try:
                wait_until(lambda: any(entry["fault"] == "hold" for entry in proxy.log()),
                           f"the download to reach page {nth}", timeout=600)
            finally:
                stderr = kill(download)
        else:
            # Half the page, then the connection closes: a network failure mid-answer. (A reset
            # before any byte of the answer is no failure: libcurl sends a GET again by itself.)
            proxy.add("cut", method="GET", match=BOOKINGS, nth=nth)
            result = tool("download", store, *arguments)
            assert result.returncode == 1, result.stdout
            stderr = result.stderr
        attempts += 1
        requested += sum(1 for entry in proxy.log() if BOOKINGS in entry["target"])
        resumed_at += [int(page) for page in re.findall(r"resuming \w+ at page (\d+)", stderr)]
        remaining = needed - kept_pages(store, tool if is_encrypted(store) else None)
    proxy.clear()
    final = tool("download", store, *arguments, "--json")
    assert final.returncode == 0, final.stderr
    requested += sum(1 for entry in proxy.log() if BOOKINGS in entry["target"])
    outcome = json.loads(final.stdout)["downloads"][0]
    resumed_at += [int(page) for page in re.findall(r"resuming \w+ at page (\d+)", final.stderr)]
    return {"requested": requested, "attempts": attempts + 1, "outcome": outcome, "resumed_at": resumed_at}


def campaign(tool, make_store, server, version: str, tmp_path, *, delta: bool, how: str, interruptions: int,
             page_size: int, changes: int, seed: int) -> dict:
    """A full refresh (or a delta download) of every booking, interrupted, compared with an
    uninterrupted one of the same service state."""
    rng = random.Random(seed)
    proxy = FaultProxy(server)
    try:
        store = make_store(proxy, version, ("Bookings", "BookingCollection"))
        paging = ["--page-size", str(page_size)]
        first = tool("download", store, *paging)
        assert first.returncode == 0, first.stderr

        # Someone else changes bookings spread over the pages, so the new content differs from the
        # old on the first pages and on the last: a reader seeing both would have seen half.
        everything = all_bookings(server)
        step = max(1, len(everything) // changes)
        changed = everything[::step][:changes]
        for booking in changed:
            rename(server, booking, "Changed Behind The Store")
        watched = [(b["carrid"], b["connid"], b["bookid"]) for b in (changed[0], changed[-1])]

        reference = tmp_path / "reference.store"
        copy_store(store, reference)
        arguments = paging + ([] if delta else ["--full"])
        uninterrupted = tool("download", reference, *arguments, "--json")
        assert uninterrupted.returncode == 0, uninterrupted.stderr
        needed = json.loads(uninterrupted.stdout)["downloads"][0]["pages"]
        assert json.loads(uninterrupted.stdout)["downloads"][0]["delta"] is delta
        assert needed >= interruptions + 2, needed

        reader = Reader(store, watched, tool if is_encrypted(store) else None)
        before = reader.look()
        reader.start()
        try:
            run = interrupted_download(tool, store, proxy, arguments, needed, interruptions, how, rng)
        finally:
            reader.stop.set()
            reader.join()
        after = reader.look()
        assert before != after and after[1:] == ("Changed Behind The Store",) * 2, (before, after)
        # Never half: each look saw the previous content or the new, whole.
        assert reader.seen <= {before, after}, reader.seen
        assert reader.looks > 0

        assert comparable(store) == comparable(reference)
        assert run["outcome"]["pages"] == needed and run["outcome"]["delta"] is delta
        assert run["resumed_at"], "no attempt resumed"
        # Close to the pages needed: each interruption costs at most the page in flight and the one ahead.
        overhead = run["requested"] - needed
        assert 0 <= overhead <= 2 * interruptions, run
        return {"needed": needed, **run, "overhead": overhead}
    finally:
        proxy.stop()


# ------------------------------------------------------------------------------ bounded campaigns

@pytest.fixture(scope="module")
def paged_v4():
    """odatapy in pages of 5, its deltas too (`--page-deltas`: odatapy itself answers a delta in one page)."""
    server = backends.start_v4(page_size=5, page_deltas=5)
    yield server
    server.stop()


@pytest.mark.parametrize("delta", [False, True], ids=["full-refresh", "delta"])
@pytest.mark.parametrize("how", ["kill", "cut"])
def test_an_interrupted_download_resumes_and_ends_as_an_uninterrupted_one(delta, how, tool, make_store, paged_v4, tmp_path):
    paged_v4.reset()
    run = campaign(tool, make_store, paged_v4, "v4", tmp_path, delta=delta, how=how, interruptions=3, page_size=5,
                   changes=60 if delta else 20, seed=25)
    print(f"\n{how} {'delta' if delta else 'full'}: {run['needed']} pages needed, {run['requested']} asked "
          f"for over {run['attempts']} attempts (overhead {run['overhead']}), resumed at {run['resumed_at']}")


def test_a_next_link_the_service_no_longer_accepts_starts_the_download_over(tool, make_store, v4, fault_proxy):
    """The kept `$skiptoken` link is refused (400, as for an expired token): the download drops the
    kept pages and starts at the first page within the same call, and ends complete."""
    proxy = fault_proxy(v4)
    store = make_store(proxy, "v4", ("Bookings", "BookingCollection"))
    kill_at_page_10(store, proxy, "--page-size", "5")
    proxy.add("respond", method="GET", match=r"^/BookingCollection\?\$skiptoken=", nth=1, status=400)
    again = tool("download", store, "--page-size", "5", "--json")
    assert again.returncode == 0, again.stderr
    outcome = json.loads(again.stdout)["downloads"][0]
    assert outcome["pages"] == 60 and outcome["fetchedPages"] == 60 and "resumedAtPage" not in outcome, outcome
    targets = [entry["target"] for entry in proxy.log()]
    assert re.match(r"^/BookingCollection\?\$skiptoken=", targets[0]) and targets[1] == "/BookingCollection", targets[:2]
    assert kept_pages(store) == 0
    connection = sqlite3.connect(store)
    assert connection.execute('SELECT count(*) FROM "es/BookingCollection"').fetchone()[0] == 300
    connection.close()


def test_a_kept_full_download_is_not_resumed_as_a_delta_one_nor_after_its_url_changed(tool, make_store, v4, fault_proxy):
    """A resume point names what it downloads: a killed full refresh is dropped when the next
    download is a delta one, and so is one of a defining request whose URL changed."""
    proxy = fault_proxy(v4)
    store = make_store(proxy, "v4", ("Bookings", "BookingCollection"))
    assert tool("download", store, "--page-size", "5").returncode == 0
    kill_at_page_10(store, proxy, "--full", "--page-size", "5")
    delta = tool("download", store, "--page-size", "5", "--json")
    assert delta.returncode == 0, delta.stderr
    outcome = json.loads(delta.stdout)["downloads"][0]
    assert outcome["delta"] is True and "resumedAtPage" not in outcome, outcome
    assert "resuming" not in delta.stderr
    assert kept_pages(store) == 0


def test_a_resume_point_older_than_a_day_is_not_trusted(tool, make_store, v4, fault_proxy):
    """A download resumes only within 24 hours of its first page; later it starts over, whole."""
    proxy = fault_proxy(v4)
    store = make_store(proxy, "v4", ("Bookings", "BookingCollection"))
    kill_at_page_10(store, proxy, "--page-size", "5")
    connection = sqlite3.connect(store)
    with connection:
        connection.execute("UPDATE ood_download_resume SET started_at = started_at - 86401")
    connection.close()
    again = tool("download", store, "--page-size", "5", "--json")
    assert again.returncode == 0, again.stderr
    outcome = json.loads(again.stdout)["downloads"][0]
    assert outcome["pages"] == 60 and outcome["fetchedPages"] == 60 and "resumedAtPage" not in outcome, outcome
    assert [entry["target"] for entry in proxy.log()][0] == "/BookingCollection"
    assert kept_pages(store) == 0


def test_a_download_of_one_page_keeps_nothing_and_a_kill_leaves_the_old_content_or_the_new(tool, make_store, v4,
                                                                                          fault_proxy, tmp_path):
    """A download whose first page is its last has nothing to resume: the page is written into the
    tables at once (not kept first), in the one transaction that makes it visible. Killed while
    the page travels or at random moments while it is written, the store holds the previous
    content or the new, whole, never a kept page, and readers polling meanwhile saw nothing else."""
    one_page = "BookingCollection?$top=20"  # under odatapy's page of 25: one page, no next link
    proxy = fault_proxy(v4)
    store = make_store(proxy, "v4", ("Bookings", one_page))
    first = tool("download", store, "--json")
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["downloads"][0]["pages"] == 1

    answer = get_json(v4.service_root + one_page)
    page = answer["value"]
    assert len(page) == 20 and "@odata.nextLink" not in answer
    for booking in (page[0], page[-1]):
        rename(v4, booking, "Changed Behind The Store")
    reader = Reader(store, [(b["carrid"], b["connid"], b["bookid"]) for b in (page[0], page[-1])])
    before = reader.look()
    # A witness of any page kept, even one deleted again before the download's end.
    connection = sqlite3.connect(store)
    with connection:
        connection.executescript("""
            CREATE TABLE test_kept_pages (page INTEGER);
            CREATE TRIGGER test_kept AFTER INSERT ON ood_download_page BEGIN INSERT INTO test_kept_pages VALUES (NEW.page); END;
            """)
    connection.close()

    # How long an uninterrupted download of the new content takes, so the kills below fall
    # before, during and after its write.
    reference = tmp_path / "reference.store"
    copy_store(store, reference)
    started = time.monotonic()
    assert tool("download", reference, "--full").returncode == 0
    took = time.monotonic() - started

    looks_after_kills = []
    reader.start()
    try:
        proxy.add("hold", method="GET", match=BOOKINGS, nth=1, seconds=60)
        download = start_tool("download", store, "--full")
        try:
            wait_until(lambda: any(entry["fault"] == "hold" for entry in proxy.log()), "the page to travel")
        finally:
            kill(download)
        proxy.clear()
        assert kept_pages(store) == 0 and reader.look() == before

        rng = random.Random(22)
        for _ in range(8):
            download = start_tool("download", store, "--full")
            time.sleep(rng.uniform(0.3, 1.0) * took)
            download.send_signal(signal.SIGKILL)  # or it has just ended: either way a state to check
            _, stderr = download.communicate(timeout=10)
            assert download.returncode in (0, -signal.SIGKILL), stderr
            assert kept_pages(store) == 0
            looks_after_kills.append(reader.look())
        final = tool("download", store, "--full", "--json")
        assert final.returncode == 0, final.stderr
        assert "resuming" not in final.stderr
    finally:
        reader.stop.set()
        reader.join()
    after = reader.look()
    assert after != before and after[1:] == ("Changed Behind The Store",) * 2, (before, after)
    assert set(looks_after_kills) <= {before, after}, looks_after_kills
    assert reader.seen <= {before, after}, reader.seen
    assert store_tables(store)["es/BookingCollection"] == store_tables(reference)["es/BookingCollection"]
    assert store_tables(store)["test_kept_pages"] == [], "a page of a one-page download was kept"


# ------------------------------------------------------------------------ the 100,000-entity campaign

CAMPAIGN_DATA = {"agencies": 100, "carriers": 15, "flights": 200, "bookings": 100_000, "seed": 25}


@pytest.mark.skipif(not os.environ.get("OOD_RESUME_CAMPAIGN"), reason="the long campaign: make resume-campaign")
@pytest.mark.parametrize("delta", [False, True], ids=["full-refresh", "delta"])
@pytest.mark.parametrize("how", ["kill", "cut"])
def test_the_campaign_at_100000_entities(delta, how, tool, make_store, tmp_path, big_v4):
    # Restoring 100,000 rows takes odatapy longer than Backend.reset waits.
    request = urllib.request.Request(big_v4.origin + "/_reset", data=b"", method="POST")
    with urllib.request.urlopen(request, timeout=900) as response:
        assert response.status in (200, 204)
    run = campaign(tool, make_store, big_v4, "v4", tmp_path, delta=delta, how=how, interruptions=5,
                   page_size=1000, changes=4000 if delta else 50, seed=2025)
    print(f"\n100,000 entities, {how} {'delta' if delta else 'full'}: {run['needed']} pages needed, "
          f"{run['requested']} asked for over {run['attempts']} attempts (overhead {run['overhead']}, "
          f"{100 * run['overhead'] / run['needed']:.1f}%), resumed at {run['resumed_at']}")


@pytest.fixture(scope="module")
def big_v4():
    """100,000 bookings in pages of 1,000; a delta of 4,000 changes in pages of 250 (16 pages)."""
    server = backends.start_v4(page_size=1000, page_deltas=250, data=CAMPAIGN_DATA, timeout=900)
    yield server
    server.stop()
