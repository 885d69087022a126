"""`offline-odata watch STORE URL` (issue 36): the current answer, then each changed one while
another process (the tool itself) writes the file; --json one line each; SIGINT stops it cleanly."""
import json
import os
import queue
import signal
import subprocess
import threading

from conftest import REPOSITORY

METADATA = REPOSITORY / "Examples" / "FlightSample" / "metadata-v4.xml"


def create(tool, path):
    made = tool("store", "create", path, "--metadata", METADATA, "--service", "http://127.0.0.1:9/",
                "--defining", "Agencies=TravelagencyCollection")
    assert made.returncode == 0, made.stderr


def add_agency(tool, path, key):
    created = tool("request", path, "--method", "POST", "TravelagencyCollection", "--body",
                   json.dumps({"agencynum": key, "name": "Watched", "city": "Boston", "country": "US"}))
    assert created.returncode == 0, created.stderr


def start_watch(path, *arguments):
    """The watch as a process, and a queue of its output lines (read on a thread, so a test waits
    for a line with a timeout instead of sleeping)."""
    process = subprocess.Popen([os.environ["OOD_TOOL"], "watch", str(path), *arguments],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: "queue.Queue[str]" = queue.Queue()

    def pump():
        for line in process.stdout:
            lines.put(line.rstrip("\n"))

    threading.Thread(target=pump, daemon=True).start()
    return process, lines


def test_json_lines_follow_another_process_writing_and_sigint_stops_cleanly(tool, tmp_path):
    path = tmp_path / "watched.store"
    create(tool, path)
    process, lines = start_watch(path, "--json", "TravelagencyCollection/$count")
    try:
        assert lines.get(timeout=60) == "0"
        add_agency(tool, path, "00000001")
        assert lines.get(timeout=60) == "1"
        add_agency(tool, path, "00000002")
        assert lines.get(timeout=60) == "2"
    finally:
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=60)
    assert code == 0, process.stderr.read()
    # The store was closed: a status of it finds it closed cleanly (no quick check after a crash).
    status = tool("status", path, "--json")
    assert status.returncode == 0, status.stderr
    assert "unclean" not in status.stdout.lower()


def test_limit_ends_after_n_answers_with_text_output(tool, tmp_path):
    path = tmp_path / "limit.store"
    create(tool, path)
    add_agency(tool, path, "00000003")
    done = tool("watch", path, "--limit", "1", "TravelagencyCollection('00000003')")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("answer 1\n") and '"agencynum":"00000003"' in done.stdout


def test_a_url_that_is_not_a_local_read_is_an_error(tool, tmp_path):
    path = tmp_path / "refused.store"
    create(tool, path)
    refused = tool("watch", path, "--json", "$metadata")
    assert refused.returncode == 1
    assert json.loads(refused.stdout)["error"]["code"] == "OOD_UNSUPPORTED"
