"""A write while another process downloads (issue 21, point 3; issue 25's resumable downloads): a
download keeps each page in a short transaction of its own and writes the pages into the tables
only once the last is there, so a write from another process no longer waits while the download
waits on the network; a download killed with SIGKILL leaves a record that is not believed. (While
the pages are applied, a write that waits out SQLite's 5 s says which download holds the store:
`StoreWriteLockTests` covers the message.)"""
from __future__ import annotations

import json
import time

from test_faults import PAGE, held, kill, start_tool, wait_until

AGENCY = json.dumps({"agencynum": "99000501", "name": "Waiting Writer", "country": "US"})


def test_a_write_during_another_processs_download_goes_through_between_its_pages(tool, make_store, v4, fault_proxy):
    proxy = fault_proxy(v4)
    store = make_store(proxy, "v4", ("Bookings", "BookingCollection"))
    # The download's 3rd page is held: the download waits on the network, holding no transaction.
    proxy.add("hold", method="GET", match="^/BookingCollection", nth=3, seconds=60)
    download = start_tool("download", store, *PAGE)
    try:
        wait_until(lambda: held(proxy), "the download to reach page 3")
        started = time.monotonic()
        write = tool("request", store, "--method", "POST", "TravelagencyCollection", "--body", AGENCY)
        assert write.returncode == 0, write.stderr
        assert time.monotonic() - started < 5, "the write waited for the download"
    finally:
        kill(download)
    # Killed, the download holds nothing: a write goes through, and the next download resumes
    # after the two pages the killed one kept.
    again = tool("request", store, "--method", "PATCH", "TravelagencyCollection('99000501')", "--body",
                 json.dumps({"city": "After The Kill"}))
    assert again.returncode == 0, again.stderr
    resumed = tool("download", store, *PAGE)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming Bookings at page 3" in resumed.stderr, resumed.stderr
