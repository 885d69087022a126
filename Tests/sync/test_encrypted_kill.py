"""kill -9 campaigns over an encrypted store (issue 33): downloads and uploads with a key, against
the real odatapy services, through the same campaigns as the plain store's (test_resumable_download,
test_upload_kill) with the tool given a raw key for every command (conftest's `keyed_tool`).

After every kill the store opens with its key (the campaigns' `status` runs through the keyed
tool); at the end nothing is lost and nothing applied twice (the upload campaign's service check;
the download campaign's comparison, table by table, with an uninterrupted download), the file is
still encrypted, and without the key the tool says so.

`make test` runs OOD_ENCRYPTED_KILLS kills per campaign (default 4); `make kill-encrypted` runs 30
(at least 30 kills each of downloads and uploads).
"""
from __future__ import annotations

import os
import subprocess

import pytest

from conftest import is_encrypted, status
from test_resumable_download import campaign as download_campaign
from test_resumable_download import paged_v4  # noqa: F401
from test_upload_kill import agency_count, check_service
from test_upload_kill import campaign as upload_campaign

KILLS = int(os.environ.get("OOD_ENCRYPTED_KILLS", "4"))


@pytest.fixture
def tool(keyed_tool):
    return keyed_tool


def assert_still_encrypted(tool, store) -> None:
    """The file is encrypted, and the tool without the key refuses it with the key's error."""
    assert is_encrypted(store)
    without = subprocess.run([tool.binary, "status", str(store)], capture_output=True, text=True, timeout=60)
    assert without.returncode == 1 and "encrypted" in without.stderr, without.stderr


def test_kill_9_during_downloads_of_an_encrypted_store(tool, make_store, paged_v4, tmp_path):
    """Campaigns of killed downloads (full refresh and delta in turn, each killed at random pages
    while a page travels), each compared with an uninterrupted download of the same service state,
    until KILLS kills have landed."""
    kills, campaigns, delta = 0, 0, False
    while kills < KILLS:
        paged_v4.reset()
        folder = tmp_path / f"campaign-{campaigns}"
        folder.mkdir()
        run = download_campaign(tool, make_store, paged_v4, "v4", folder, delta=delta, how="kill",
                                interruptions=min(5, KILLS - kills), page_size=5, changes=60 if delta else 20,
                                seed=33 + campaigns)
        kills += run["attempts"] - 1
        campaigns += 1
        print(f"\nencrypted {'delta' if delta else 'full'}: {run['needed']} pages, {run['attempts'] - 1} kills, "
              f"resumed at {run['resumed_at']}")
        delta = not delta
        # make_store's store (in tmp_path): checked, then removed for the next campaign's.
        store = tmp_path / "travel-v4.store"
        assert_still_encrypted(tool, store)
        for suffix in ("", "-wal", "-shm", "-writer"):
            if os.path.exists(f"{store}{suffix}"):
                os.unlink(f"{store}{suffix}")
    print(f"{kills} kills in {campaigns} download campaigns with a key")


@pytest.mark.parametrize("batch", [False, True], ids=["single", "batch"])
def test_kill_9_during_uploads_of_an_encrypted_store(batch, tool, make_store, v4):
    store = make_store(v4, "v4", ("Agencies", "TravelagencyCollection"))
    assert is_encrypted(store)
    assert tool("download", store).returncode == 0
    seed_count = agency_count(v4)
    options = ["--batch", "--batch-size", "3"] if batch else []
    expected, kills, runs = upload_campaign(tool, store, options, seed=33 + int(batch), keyless=0, kills_wanted=KILLS)
    check_service(v4, status(tool, store), expected, seed_count)
    assert_still_encrypted(tool, store)
    print(f"encrypted uploads ({'batch' if batch else 'single'}): {kills} kills in {runs} runs")
