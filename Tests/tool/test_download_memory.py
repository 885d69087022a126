"""A download's memory is bounded by its page size, not a multiple of it: the page being stored
is held once (as bytes, each entity written as soon as it is read), and the next page is fetched
while it is stored only after pages of at most 4 MiB (PageFetcher.readAheadLimit).

The page server of Benchmarks/python/download_vs_python.py serves 200,000 entities in the page
size the tool asks for; peak memory is the operating system's figure for the tool's process.
`make bench` runs the full table (Benchmarks/python/download_memory.py)."""
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Benchmarks" / "python"))
import download_memory  # noqa: E402

MIB = 2**20
READ_AHEAD_LIMIT = 4 * MIB
ENTITIES = 200_000


@pytest.fixture(scope="module")
def peaks():
    tool = os.environ.get("OOD_TOOL")
    if not tool:
        pytest.fail("OOD_TOOL is not set: run these tests through ctest or `make test`")
    return {size: (page_bytes, peak_mb * MIB)
            for size, page_bytes, peak_mb in download_memory.measure(tool, [100, 20_000, 50_000], ENTITIES)}


def test_a_large_page_is_held_once(peaks):
    """50,000 entities a page (about 9 MiB, past the read-ahead limit): the peak grows by about
    one page's bytes over a download in pages of 100, where holding the page parsed into
    entities grew it by about ten times the page."""
    page, peak = peaks[50_000]
    _, small_peak = peaks[100]
    assert page > READ_AHEAD_LIMIT
    assert peak - small_peak <= page + 4 * MIB, (page, peak - small_peak)


def test_a_page_under_the_read_ahead_limit_costs_at_most_two_pages(peaks):
    """20,000 entities a page (about 3.7 MiB): the page stored and the next one travelling."""
    page, peak = peaks[20_000]
    _, small_peak = peaks[100]
    assert page <= READ_AHEAD_LIMIT
    assert peak - small_peak <= 2 * page + 4 * MIB, (page, peak - small_peak)
