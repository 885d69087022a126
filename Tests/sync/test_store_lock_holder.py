"""A write while another process downloads (issue 21, point 3): it fails after SQLite's 5 s wait,
saying what holds the store (the download of which defining request, in which process) and how
long it waited; a download killed with SIGKILL leaves a record that is not believed."""
from __future__ import annotations

import json
import os

from test_faults import PAGE, held, kill, start_tool, wait_until

AGENCY = json.dumps({"agencynum": "99000501", "name": "Waiting Writer", "country": "US"})


def test_a_write_during_another_processs_download_says_which_download_holds_the_store(tool, make_store, v4,
                                                                                        fault_proxy):
    proxy = fault_proxy(v4)
    store = make_store(proxy, "v4", ("Bookings", "BookingCollection"))
    # The download's 3rd page is held: its transaction stays open meanwhile.
    proxy.add("hold", method="GET", match="^/BookingCollection", nth=3, seconds=60)
    download = start_tool("download", store, *PAGE)
    try:
        wait_until(lambda: held(proxy), "the download to reach page 3")
        write = tool("request", store, "--method", "POST", "TravelagencyCollection", "--body", AGENCY)
        assert write.returncode == 1
        assert (f"is locked for writing, held by a download of defining request 'Bookings' in process {download.pid}"
                in write.stderr), write.stderr
        assert "waited 5." in write.stderr
    finally:
        kill(download)
    # Killed, the download leaves its record, unlocked: it is not believed, and nothing holds the store.
    assert os.path.getsize(f"{store}-writer") > 0
    again = tool("request", store, "--method", "POST", "TravelagencyCollection", "--body", AGENCY)
    assert again.returncode == 0, again.stderr
