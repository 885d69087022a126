"""Ctrl-C and SIGTERM on a download or an upload (issue 39): the tool stops at a safe point, says
so, finishes its progress line, closes the store and exits 130 or 143; `status` then shows the
pages an interrupted download kept. Run on a pseudo-terminal, as a user's Ctrl-C is, so the
progress bar is drawn. The service holds one chosen request until the test lets it go, so the
signal arrives while that request is in flight, without timing anything."""
import json
import os
import pty
import signal
import subprocess
import threading

import pytest

from gated_service import METADATA, GatedService


class Terminal:
    """The tool on a pseudo-terminal (standard input, output and error), its output collected."""

    def __init__(self, arguments):
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(arguments, stdin=slave, stdout=slave, stderr=slave, close_fds=True)
        os.close(slave)
        self.chunks = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        while True:
            try:
                chunk = os.read(self.master, 65536)
            except OSError:  # EIO: the tool ended and the terminal closed
                break
            if not chunk:
                break
            self.chunks.append(chunk)

    def finish(self):
        code = self.process.wait(timeout=60)
        self.reader.join(timeout=10)
        os.close(self.master)
        return code, b"".join(self.chunks).decode(errors="replace")


@pytest.fixture
def service():
    running = GatedService(total=100, page_size=5, hold_at=3)
    yield running
    running.stop()


def create_store(tool, path, root):
    created = tool("store", "create", path, "--metadata", METADATA, "--service", root, "--defining", "Items=Items")
    assert created.returncode == 0, created.stderr


def assert_closed_cleanly(tool, path):
    # SQLite removes the write-ahead log when the last connection closes; the next command
    # finds nothing to recover.
    assert not os.path.exists(f"{path}-wal"), "the store was left open"
    assert "not closed cleanly" not in tool("status", path).stderr


@pytest.mark.parametrize("sent, code, name", [(signal.SIGINT, 130, "SIGINT"), (signal.SIGTERM, 143, "SIGTERM")])
def test_a_signal_stops_a_download_at_a_safe_point_and_status_shows_the_kept_pages(tool, tmp_path, service, sent, code, name):
    path = str(tmp_path / "items.store")
    create_store(tool, path, service.root)
    terminal = Terminal([os.environ["OOD_TOOL"], "download", path])
    # Pages 1 and 2 came; page 3 is in flight.
    assert service.held.wait(60)
    terminal.process.send_signal(sent)
    exit_code, output = terminal.finish()
    service.release.set()
    assert exit_code == code, output
    message = f"download interrupted by {name}: stopped at a safe point, 2 pages kept for resuming (Items: 2 pages)"
    assert message in output, output
    # The progress bar was drawn and then ended: the message starts a line of its own.
    assert "downloading Items" in output
    assert output[output.index(message) - 1] == "\n", repr(output[-300:])
    assert_closed_cleanly(tool, path)

    status = tool("status", path)
    assert status.returncode == 0, status.stderr
    assert "state: never downloaded" in status.stdout
    assert "resumable: 2 pages kept (Items: 2 pages, 10 entities)" in status.stdout, status.stdout
    as_json = json.loads(tool("status", path, "--json").stdout)
    assert as_json["resumable"] == [{"definingRequest": "Items", "pages": 2, "entities": 10}]

    # The next download goes on after the kept pages.
    resumed = tool("download", path)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming Items at page 3 (2 pages kept" in resumed.stderr
    assert "downloaded Items: 100 entities in 20 pages, resumed at page 3" in resumed.stdout
    assert json.loads(tool("status", path, "--json").stdout)["resumable"] == []


def test_the_help_documents_the_signal_exit_codes(tool):
    for command in ("download", "upload"):
        text = " ".join(tool(command, "--help").stdout.split())
        assert "130 or 143 stopped by SIGINT" in text, command


def test_a_download_stopped_with_json_prints_one_error_object(tool, tmp_path, service):
    path = str(tmp_path / "items.store")
    create_store(tool, path, service.root)
    process = subprocess.Popen([os.environ["OOD_TOOL"], "download", path, "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert service.held.wait(60)
    process.send_signal(signal.SIGINT)
    stdout, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr
    error = json.loads(stdout)["error"]
    assert error["code"] == "OOD_ABORTED" and "interrupted by SIGINT" in error["message"]
    assert "interrupted by SIGINT" in stderr


def queue_creates(tool, path, names):
    for number, name in enumerate(names, start=1):
        body = json.dumps({"ID": 1000 + number, "Name": name})
        queued = tool("request", path, "--method", "POST", "Items", "--body", body, "--no-merge")
        assert queued.returncode == 0, queued.stderr


def test_sigint_stops_an_upload_after_the_request_in_flight(tool, tmp_path):
    service = GatedService(hold_at=2)
    try:
        path = str(tmp_path / "items.store")
        create_store(tool, path, service.root)
        queue_creates(tool, path, ["one", "two", "three", "four"])
        terminal = Terminal([os.environ["OOD_TOOL"], "upload", path])
        # The first create was answered; the second is in flight.
        assert service.held.wait(60)
        terminal.process.send_signal(signal.SIGINT)
        # The answer of the request in flight is waited for (cut off, it might be applied twice).
        service.release.set()
        exit_code, output = terminal.finish()
    finally:
        service.stop()
    assert exit_code == 130, output
    assert "upload interrupted by SIGINT: stopped after the request in flight was answered; 2 requests still queued" in output
    assert [post["Name"] for post in service.posts] == ["one", "two"]
    assert_closed_cleanly(tool, path)
    assert json.loads(tool("status", path, "--json").stdout)["state"]["queued"] == 2


def test_an_upload_that_archives_requests_exits_3_with_the_store_closed(tool, tmp_path):
    service = GatedService(hold_at=0)
    service.refused_names = {"refused"}
    try:
        path = str(tmp_path / "items.store")
        create_store(tool, path, service.root)
        queue_creates(tool, path, ["fine", "refused"])
        upload = tool("upload", path)
    finally:
        service.stop()
    assert upload.returncode == 3, upload.stderr
    assert "1 sent, 1 moved to the error archive" in upload.stdout
    assert_closed_cleanly(tool, path)
