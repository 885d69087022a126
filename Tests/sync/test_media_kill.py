"""Media streams under kill -9 (issue 35, docs/MEDIA.md): `offline-odata download` of a defining
request that retrieves streams, killed (SIGKILL) at random points of a large stream's transfer.

Each kill leaves the stream's temporary file with what was written; the next download asks for
the rest (`Range: bytes=N-`, `If-Range`) and the service answers 206 from N, so the part already
on disk is never fetched again. In the end the stream's file has the service's bytes (SHA-256
equal), `store check` finds nothing, and no temporary file is left.

`make test` runs a bounded campaign (OOD_MEDIA_KILLS, 3 by default); `make kill-media` runs 30.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import signal
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
    store = tmp_path / "media.store"
    created = tool("store", "create", store, "--metadata", metadata, "--service", media_server.service_root,
                   "--defining", "Documents=Documents", "--streams", "Documents")
    assert created.returncode == 0, created.stderr
    folder = Path(str(store) + ".streams")
    before = len(media_log(media_server))
    rng = random.Random(35)
    kept_at_kill: list[int] = []
    interrupted = 0
    for _ in range(KILLS):
        target = rng.randrange(1 << 20, SIZE - (1 << 20))
        already = part_size(folder)
        process = start_tool("download", store)
        # Killed once the temporary file passed a random point (polled, not slept on).
        while process.poll() is None and part_size(folder) < max(target, already + 1):
            time.sleep(0.001)
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            process.communicate(timeout=30)
            assert process.returncode == -signal.SIGKILL
            interrupted += 1
            kept_at_kill.append(part_size(folder))
        else:
            process.communicate(timeout=30)
            break
    finished = tool("download", store)
    assert finished.returncode == 0, finished.stderr
    assert interrupted >= min(KILLS, 1), "no download was interrupted"

    gets = media_log(media_server)[before:]
    # After each kill, the next GET starts where the file ended: a 206 of the rest.
    assert len(gets) >= len(kept_at_kill) + 1
    for kept, get in zip(kept_at_kill, gets[1:]):
        if kept > 0:
            assert get["status"] == 206, gets
            assert get["bytes"] == SIZE - kept, (kept, get)

    shown = tool("stream", "get", store, "Documents(1)/$value", "--json")
    assert shown.returncode == 0, shown.stderr
    stream = json.loads(shown.stdout)
    assert stream["length"] == SIZE
    expected = served_sha256(media_server, "Documents(1)/$value")
    assert stream["sha256"] == expected
    digest = hashlib.sha256()
    with open(stream["path"], "rb") as file:
        while chunk := file.read(1 << 20):
            digest.update(chunk)
    assert digest.hexdigest() == expected
    assert sorted(p.name for p in folder.iterdir()) == [Path(stream["path"]).name]
    checked = tool("store", "check", store)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    print(f"media kill campaign: {interrupted} kills, part sizes at kill {kept_at_kill}, "
          f"GETs {[(g['status'], g['bytes']) for g in gets]}")
