"""A hostile page costs a bounded amount of memory, and a refused one leaves the store as it was
(issue 39). Each service answers page 1 (one small entity, a next link) and a hostile page 2,
from a process of its own; the peak is the operating system's figure for the tool's process,
started from a lean one (Benchmarks/python/hostile_memory.py, whose `make bench` run uses the
default limits and larger pages). The bound (docs/SECURITY.md): the tool's own memory, plus one
page's bytes (at most the answer limit), plus about five times the value limit while a page is
written. Before the limits, one 48 MB value cost about four copies (192 MB) and a gzip bomb the
limit twice over for a moment (the buffer's last doubling)."""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Benchmarks" / "python"))
import hostile_memory  # noqa: E402

MIB = 2**20
MB = 1000 * 1000


@pytest.fixture(scope="module")
def tool_path():
    tool = os.environ.get("OOD_TOOL")
    if not tool:
        pytest.fail("OOD_TOOL is not set: run these tests through ctest or `make test`")
    return tool


@pytest.fixture(scope="module")
def own_peak(tool_path):
    """The tool's peak for two small pages: what a hostile page's peak is compared with."""
    code, peak, output, _ = hostile_memory.measure(tool_path, "small", 0)
    assert code == 0, output
    return peak


def test_one_huge_value_is_refused_at_the_value_limit_holding_only_its_page(tool_path, own_peak):
    code, peak, output, page = hostile_memory.measure(tool_path, "string", 48 * MB)
    assert code == 1, output
    assert "the string of 'Name' is 48000000 bytes, more than the maximum value size of 16777216 bytes" in output
    assert peak - own_peak <= page + hostile_memory.SLACK, (page, peak - own_peak)


def test_values_under_the_limit_are_stored_within_the_bound(tool_path, own_peak):
    """Two values of 15 MiB, under a 16 MiB value limit: stored, for the page and a value's copies (before,
    rows waited in batches of 32, decoded and bound: the page's values twice over besides the page)."""
    code, peak, output, page = hostile_memory.measure(tool_path, "values", 30 * MIB)
    assert code == 0, output
    assert peak - own_peak <= hostile_memory.bound("values", page), (page, peak - own_peak)


def test_a_gzip_bomb_is_refused_at_the_answer_limit_without_holding_it_twice(tool_path, own_peak):
    limit = 40 * MIB
    code, peak, output, compressed = hostile_memory.measure(tool_path, "gzip", 128 * MIB, ["--max-response-size", limit])
    assert code == 1, output
    assert f"the answer is larger than {limit} bytes (decompressed)" in output
    assert compressed < MIB
    assert peak - own_peak <= limit + hostile_memory.SLACK, peak - own_peak


def test_a_huge_error_answer_is_read_for_its_message_only(tool_path, own_peak):
    code, peak, output, page = hostile_memory.measure(tool_path, "error", 40 * MB)
    assert code == 1, output
    # Its first MiB is read: too little for the JSON, so the message quotes its start, briefly.
    assert "the service answered 500: " in output and len(output) < 10_000, output[:2000]
    assert peak - own_peak <= page + hostile_memory.SLACK, (page, peak - own_peak)


def test_a_refused_page_leaves_the_store_as_it_was_and_the_download_resumable(tool_path):
    service = hostile_memory.HostileService("string", 2 * MB)
    try:
        with tempfile.TemporaryDirectory() as folder:
            code, _, output, store = hostile_memory.download_peak(tool_path, service, folder, ["--max-value-size", MIB])
            assert code == 1, output
            assert "page 2 of 'Items'" in output and f"more than the maximum value size of {MIB} bytes" in output
            with sqlite3.connect(store) as connection:
                assert connection.execute('SELECT count(*) FROM "es/Items"').fetchone() == (0,)
                assert connection.execute("SELECT page FROM ood_download_page").fetchall() == [(1,)]
            status = subprocess.run([tool_path, "status", store, "--json"], capture_output=True, text=True)
            assert [kept["pages"] for kept in json.loads(status.stdout)["resumable"]] == [1], status.stdout
            # With the limit raised, the download goes on at page 2 and stores both pages.
            again = subprocess.run([tool_path, "download", store, "--max-value-size", str(4 * MIB)],
                                   capture_output=True, text=True)
            assert again.returncode == 0, again.stderr
            assert "resuming Items at page 2" in again.stderr
            with sqlite3.connect(store) as connection:
                lengths = connection.execute('SELECT length("Name") FROM "es/Items" ORDER BY 1').fetchall()
            assert lengths == [(5,), (2 * MB,)]
    finally:
        service.stop()
