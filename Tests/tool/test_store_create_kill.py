"""kill -9 during the first creation of a store (issue 21): whatever moment `store create` dies,
the path holds no file or a store, never a file that cannot be opened or made again.

A new store is built beside its path (`<path>.creating`) and linked into place whole; its model
is written after. So a kill leaves one of: nothing at the path; a store without its model (which
`store create` finishes); a complete store. Each run starts `store create` on a fresh path and
kills it after a random delay within the span one creation takes, then checks what is there and
that `store create` (or `store info`) then works.

OOD_CREATE_KILLS kills (default 24) land in all.
"""
from __future__ import annotations

import os
import random
import signal
import subprocess
import time

from conftest import REPOSITORY

METADATA = REPOSITORY / "Examples" / "FlightSample" / "metadata-v4.xml"
KILLS = int(os.environ.get("OOD_CREATE_KILLS", "24"))


def create_arguments(path):
    return [os.environ["OOD_TOOL"], "store", "create", str(path), "--metadata", str(METADATA),
            "--service", "http://127.0.0.1:9/", "--defining", "Agencies=TravelagencyCollection"]


def test_a_creation_killed_at_any_moment_leaves_a_path_that_opens_or_is_made_again(tool, tmp_path):
    started = time.monotonic()
    assert subprocess.run(create_arguments(tmp_path / "timed.store"), capture_output=True).returncode == 0
    span = time.monotonic() - started
    generator = random.Random(21)
    seen = {"nothing": 0, "half-built beside it": 0, "without model": 0, "complete": 0}
    kills = 0
    runs = 0
    while kills < KILLS and runs < 10 * KILLS:
        runs += 1
        path = tmp_path / f"killed-{runs}.store"
        process = subprocess.Popen(create_arguments(path), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(generator.uniform(0, span * 1.1))
        if process.poll() is not None:
            continue  # done before the kill: try sooner next time
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        if process.returncode == 0:
            continue  # it ended between the look and the kill
        assert process.returncode == -signal.SIGKILL
        kills += 1
        if not path.exists():
            seen["half-built beside it" if os.path.exists(f"{path}.creating") else "nothing"] += 1
        else:
            assert path.stat().st_size > 0, "a kill left an empty file at the store's path"
            info = tool("store", "info", path)
            if info.returncode == 0:
                seen["complete"] += 1
            else:
                assert "without a service model" in info.stderr, info.stderr
                seen["without model"] += 1
        if tool("store", "info", path).returncode != 0:
            again = subprocess.run(create_arguments(path), capture_output=True, text=True)
            assert again.returncode == 0, again.stderr
        assert tool("store", "info", path).returncode == 0
        assert tool("store", "check", path).returncode == 0
    assert kills == KILLS, f"only {kills} of {runs} runs were killed before they ended"
    print(f"kills: {kills} in {runs} runs; left: {seen}")
