"""Media streams under kill -9 (issue 35, docs/MEDIA.md): `offline-odata download` of a defining
request that retrieves streams, killed (SIGKILL) at random points of a large stream's transfer.

Each kill leaves the stream's temporary file with what was written; the next download asks for
the rest (`Range: bytes=N-`, `If-Range`) and the service answers 206 from N (or 416 when the part
is already whole), so the part already on disk is never fetched again. In the end the stream's file has the service's bytes (SHA-256
equal), `store check` finds nothing, and no temporary file is left.

A second campaign kills `offline-odata upload` of a media entity created offline (`stream put`),
at a random point of the stream's transfer (the service answers nothing and applies nothing), or
once the service has created the entity and holds the `PATCH` of its properties (the answer to the
`POST` lost with the process). The next upload settles the create by reading back
(`MediaCreateFinder`): found, it is adopted (one `POST` in all); not there, it is sent again. The
service never gets two media entities, the local one is never lost, and every run is settled
without the app (nothing archived as in doubt) on this cooperative service.

`make test` runs bounded campaigns (OOD_MEDIA_KILLS, 3 by default); `make kill-media` runs 30 each.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import sqlite3
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

import backends
from test_faults import start_tool

KILLS = int(os.environ.get("OOD_MEDIA_KILLS", "3"))
SIZE = 48 << 20  # bytes of the one stream


def media_log(server) -> list[dict]:
    with urllib.request.urlopen(server.origin + "/_media_log", timeout=30) as answer:
        return json.load(answer)["gets"]


def served_sha256(server, url: str) -> str:
    digest = hashlib.sha256()
    with urllib.request.urlopen(server.url(url), timeout=120) as answer:
        while chunk := answer.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def part_size(folder: Path) -> int:
    parts = list(folder.glob("*.part")) if folder.exists() else []
    return parts[0].stat().st_size if parts else 0


@pytest.fixture(scope="module")
def media_server():
    server = backends.start_v4_media(count=1, size=SIZE)
    yield server
    server.stop()


def test_a_killed_stream_download_resumes_without_fetching_its_finished_part_again(media_server, tool, tmp_path):
    metadata = tmp_path / "media.xml"
    with urllib.request.urlopen(media_server.url("$metadata"), timeout=30) as answer:
        metadata.write_bytes(answer.read())
    expected = served_sha256(media_server, "Documents(1)/$value")
    rng = random.Random(35)
    interrupted, stores, report = 0, 0, []
    # Store after store: each download killed at random points of what is left until it completes.
    while interrupted < KILLS:
        stores += 1
        store = tmp_path / f"media{stores}.store"
        created = tool("store", "create", store, "--metadata", metadata, "--service", media_server.service_root,
                       "--defining", "Documents=Documents", "--streams", "Documents")
        assert created.returncode == 0, created.stderr
        folder = Path(str(store) + ".streams")
        before = len(media_log(media_server))
        kept_at_kill: list[int] = []
        while interrupted < KILLS:
            already = part_size(folder)
            target = already + rng.randrange(1, max(2, SIZE - already))  # a random point of the rest
            process = start_tool("download", store)
            # Killed once the temporary file passed it (polled, not slept on).
            while process.poll() is None and part_size(folder) < target:
                time.sleep(0.001)
            if process.poll() is not None:
                process.communicate(timeout=30)
                break
            process.send_signal(signal.SIGKILL)
            process.communicate(timeout=30)
            assert process.returncode == -signal.SIGKILL
            interrupted += 1
            kept_at_kill.append(part_size(folder))
        finished = tool("download", store)
        assert finished.returncode == 0, finished.stderr
        gets = media_log(media_server)[before:]
        report.append((kept_at_kill, [(g["status"], g["bytes"]) for g in gets]))
        # After each kill, the next GET starts where the file ended: a 206 of exactly the rest
        # (a 416 when the part was already whole).
        for kept, get in zip(kept_at_kill, gets[1:]):
            if kept == SIZE:
                assert get["status"] == 416 and get["bytes"] == 0, gets
            elif kept > 0:
                assert get["status"] == 206, gets
                assert get["bytes"] == SIZE - kept, (kept, get)
        shown = tool("stream", "get", store, "Documents(1)/$value", "--json")
        assert shown.returncode == 0, shown.stderr
        stream = json.loads(shown.stdout)
        assert stream["length"] == SIZE and stream["sha256"] == expected
        digest = hashlib.sha256()
        with open(stream["path"], "rb") as file:
            while chunk := file.read(1 << 20):
                digest.update(chunk)
        assert digest.hexdigest() == expected
        assert sorted(p.name for p in folder.iterdir()) == [Path(stream["path"]).name]
        checked = tool("store", "check", store)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    print(f"media kill campaign: {interrupted} kills over {stores} stores; per store (part sizes at kill, GETs): {report}")


UPLOAD_SIZE = 24 << 20


def read_bytes(pid: int) -> int:
    """Bytes the process read so far (`rchar` of /proc/PID/io): the stream's file as it is sent."""
    try:
        with open(f"/proc/{pid}/io") as io:
            for line in io:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def service_documents(server) -> list[dict]:
    with urllib.request.urlopen(server.url("Documents"), timeout=30) as answer:
        return json.load(answer)["value"]


def post_to(server, path: str, body: bytes = b"") -> None:
    request = urllib.request.Request(server.origin + path, data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=30).close()


def full_log(server) -> dict:
    with urllib.request.urlopen(server.origin + "/_media_log", timeout=30) as answer:
        return json.load(answer)


def test_a_killed_media_upload_never_creates_two_entities_nor_loses_the_local_one(media_server, tool, tmp_path):
    """`offline-odata upload` of a media entity created offline (`stream put`), killed while it
    sends the stream (even runs) or after the service created the entity, before its properties
    (odd runs): the next upload settles it by reading back, never twice; the local entity stays."""
    metadata = tmp_path / "media.xml"
    with urllib.request.urlopen(media_server.url("$metadata"), timeout=30) as answer:
        metadata.write_bytes(answer.read())
    photo = tmp_path / "photo.bin"
    photo.write_bytes(bytes(range(256)) * (UPLOAD_SIZE // 256))
    photo_sha256 = hashlib.sha256(photo.read_bytes()).hexdigest()
    rng = random.Random(36)
    outcomes = []
    for run in range(KILLS):
        media_server.reset()
        store = tmp_path / f"up{run}.store"
        assert tool("store", "create", store, "--metadata", metadata, "--service", media_server.service_root,
                    "--defining", "Documents=Documents").returncode == 0
        put = tool("stream", "put", store, "Documents", photo, "--type", "application/octet-stream",
                   "--properties", json.dumps({"title": f"run {run}"}))
        assert put.returncode == 0, put.stderr
        before = {d["id"] for d in service_documents(media_server)}
        after_post = run % 2 == 1
        if after_post:
            post_to(media_server, "/_media_hostile", b'{"hold_patch": true}')
            process = start_tool("upload", store)
            # Killed once the service created the entity and holds its PATCH (polled, not slept on).
            while process.poll() is None and full_log(media_server).get("held", 0) < 1:
                time.sleep(0.001)
        else:
            target = rng.randrange(1 << 20, UPLOAD_SIZE)
            process = start_tool("upload", store)
            while process.poll() is None and read_bytes(process.pid) < target:
                time.sleep(0.001)
        killed = process.poll() is None
        if killed:
            process.send_signal(signal.SIGKILL)
        process.communicate(timeout=30)
        post_to(media_server, "/_media_release")
        posts_before = len(full_log(media_server)["posts"])
        again = tool("upload", store, "--json")
        log = full_log(media_server)
        new = [d for d in service_documents(media_server) if d["id"] not in before]
        # Never two media entities on the service.
        assert len(new) <= 1, f"run {run}: {len(new)} media entities created: {new}"
        with sqlite3.connect(store) as db:
            table = db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%Documents%' "
                               "AND name NOT LIKE 'ood_%'").fetchone()[0]
            local = db.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
            archived = db.execute("SELECT count(*) FROM ood_error_archive").fetchone()[0]
            queued = db.execute("SELECT count(*) FROM ood_request_queue").fetchone()[0]
        # Never a lost one: the local entity stays, and this cooperative service always lets the
        # engine settle the create by itself (uploaded, nothing queued nor archived).
        assert local == 1, f"run {run}: the local entity is gone"
        assert again.returncode == 0 and queued == 0 and archived == 0, \
            f"run {run}: not settled ({queued} queued, {archived} archived): {again.stdout} {again.stderr}"
        assert len(new) == 1 and new[0].get("title") == f"run {run}", f"run {run}: {new}"
        assert served_sha256(media_server, f"Documents({new[0]['id']})/$value") == photo_sha256
        applied_posts = [p for p in log["posts"] if p["status"] in (200, 201)]
        assert len(applied_posts) == 1, f"run {run}: {log['posts']}"
        if not killed:
            outcomes.append("uploaded before the kill")
        elif len(log["posts"]) == posts_before:
            outcomes.append("found on the service and adopted")  # no second POST
        else:
            outcomes.append("found not there, sent again")
    settled = sum(1 for o in outcomes if o != "uploaded before the kill")
    counts = {o: outcomes.count(o) for o in sorted(set(outcomes))}
    print(f"media upload kill campaign: {KILLS} runs, {settled} kills settled by reading back without the app, "
          f"0 archived: {counts}")
