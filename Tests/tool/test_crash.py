"""Local writes killed at random moments: the store opens with its tables and its queue in
agreement (issue 5 acceptance 3). Each write is one SQLite transaction (table change and queue
append together, synchronous=FULL), so a kill leaves either both or neither."""
import os
import random
import signal
import sqlite3
import subprocess
import time

FLIGHT_V4 = os.path.join(os.path.dirname(__file__), "..", "..", "Examples", "FlightSample", "metadata-v4.xml")


def test_killed_writes_leave_tables_and_queue_consistent(tool, tmp_path):
    path = str(tmp_path / "crash.store")
    assert tool("store", "create", path, "--metadata", FLIGHT_V4).returncode == 0
    binary = os.environ["OOD_TOOL"]
    # How long one whole write takes here: kills are spread over that time, so some land before,
    # some during and some after the transaction.
    started = time.monotonic()
    assert tool("request", path, "--method", "POST", "TravelagencyCollection", "--body",
                '{"agencynum":"timing","name":"Timing"}').returncode == 0
    duration = time.monotonic() - started
    rng = random.Random(20261122)
    killed = 0
    for index in range(60):
        body = '{"agencynum":"%08d","name":"Agency %d","city":"Rome"}' % (index, index)
        process = subprocess.Popen([binary, "request", path, "--method", "POST", "TravelagencyCollection", "--body", body],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # Kill somewhere between start-up and the end of the write.
        time.sleep(rng.uniform(0.2, 1.3) * duration)
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            killed += 1
        process.wait(timeout=30)
    assert killed > 0, "no process was killed mid-way; the test proved nothing"

    # The store opens, and the tool sees the same queue as the tables.
    result = tool("status", path, "--json")
    assert result.returncode == 0, result.stderr
    connection = sqlite3.connect(path)
    try:
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        created = {row[0] for row in connection.execute(
            'SELECT "_ood_id" FROM "es/TravelagencyCollection" WHERE "_ood_change" = \'created\'')}
        queued = [row[0] for row in connection.execute(
            "SELECT entity_id FROM ood_request_queue WHERE method = 'POST' ORDER BY id")]
        unchanged = connection.execute(
            'SELECT count(*) FROM "es/TravelagencyCollection" WHERE "_ood_change" IS NULL').fetchone()[0]
    finally:
        connection.close()
    assert sorted(queued) == sorted(created), "every created entity has exactly one queued POST, and no POST is orphaned"
    assert unchanged == 0
    assert len(created) > 1, "no killed or finished write stored anything; the test proved nothing"
