"""Terminal and URL hygiene (issue 39): text from the service reaches the terminal with its control
characters escaped, a service root that is not http or https is refused where it is given, and
--verbose / --trace show the HTTP exchange with the credentials masked."""
import json

from gated_service import METADATA, GatedService
from test_interruption import create_store, queue_creates

ESCAPE = "\x1b[31mred\x1b[0m\x9b2J\r"


def test_control_characters_from_the_service_are_escaped(tool, tmp_path):
    service = GatedService(hold_at=0)
    service.refused_names = {"refused"}
    service.refusal_message = f"bad {ESCAPE} request"
    try:
        path = str(tmp_path / "items.store")
        create_store(tool, path, service.root)
        queue_creates(tool, path, ["refused"])
        upload = tool("upload", path)
    finally:
        service.stop()
    assert upload.returncode == 3, upload.stderr
    table = tool("archive", path)
    assert table.returncode == 0, table.stderr
    # The engine blanks control characters in a service's message; none reaches the terminal.
    assert "\x1b" not in table.stdout and "\x9b" not in table.stdout and "\r" not in table.stdout
    assert "bad" in table.stdout and "[31mred" in table.stdout
    [entry] = json.loads(tool("archive", path, "--json").stdout)["errorArchive"]
    assert "\x1b" not in entry["message"] and "[31mred" in entry["message"]


def test_an_error_message_of_the_service_is_escaped(tool, tmp_path):
    service = GatedService(hold_at=0)
    service.refused_names = {"refused"}
    service.refusal_message = f"no {ESCAPE}"
    try:
        path = str(tmp_path / "items.store")
        create_store(tool, path, service.root)
        online = tool("request", path, "--mode", "online", "--method", "POST", "Items",
                      "--body", json.dumps({"ID": 1, "Name": "refused"}))
    finally:
        service.stop()
    assert online.returncode == 1
    assert "\x1b" not in online.stderr and "\x9b" not in online.stderr and "\r" not in online.stderr
    assert "[31mred" in online.stderr
    # The service's error code is its status again: said once (issue 39).
    assert "answered 400: no" in online.stderr and "(400)" not in online.stderr


def test_control_characters_in_a_store_reach_the_terminal_escaped(tool, tmp_path):
    # A defining request's name is the user's (or a script's) text, kept in the file as given.
    path = str(tmp_path / "items.store")
    created = tool("store", "create", path, "--metadata", METADATA, "--defining", f"Red{ESCAPE}=Items")
    assert created.returncode == 0, created.stderr
    status = tool("status", path)
    assert status.returncode == 0, status.stderr
    assert "\x1b" not in status.stdout and "\x9b" not in status.stdout and "\r" not in status.stdout
    assert "Red\\e[31mred\\e[0m\\u{9b}2J\\r" in status.stdout


def test_a_service_root_that_is_not_http_is_refused_where_it_is_given(tool, tmp_path):
    path = str(tmp_path / "x.store")
    created = tool("store", "create", path, "--metadata", METADATA, "--service", "ftp://example.org/odata/")
    assert created.returncode == 1
    assert "http or https" in created.stderr
    create_store(tool, path, "http://127.0.0.1:9/")
    for command in (["download", path], ["upload", path], ["request", path, "--mode", "online", "Items"]):
        result = tool(*command, "--service", "file:///etc/")
        assert result.returncode == 64, result.stderr
        assert "--service takes an http or https URL" in result.stderr


def test_verbose_and_trace_show_the_exchange_with_credentials_masked(tool, tmp_path):
    service = GatedService(total=7, page_size=5, hold_at=0)
    try:
        path = str(tmp_path / "items.store")
        create_store(tool, path, service.root)
        verbose = tool("download", path, "--verbose")
        traced = tool("download", path, "--full", "--trace", "--user", "alice", "--header", "X-Api-Key: k3y-value",
                      env={"OFFLINE_ODATA_PASSWORD": "pa55word"})
    finally:
        service.stop()
    assert verbose.returncode == 0, verbose.stderr
    lines = verbose.stderr.splitlines()
    # The service's model is checked first (issue 34), then the two pages.
    assert lines.index(f"> GET {service.root}$metadata") < lines.index(f"> GET {service.root}Items")
    assert sum(line.startswith("< 200 (") for line in lines) == 3, verbose.stderr
    assert not any(line.startswith(">   ") for line in lines)
    assert traced.returncode == 0, traced.stderr
    assert ">   Authorization: Basic ***" in traced.stderr
    assert ">   X-Api-Key: ***" in traced.stderr
    assert "<   Content-Type: application/json;odata.metadata=minimal" in traced.stderr
    assert "pa55word" not in traced.stderr and "k3y-value" not in traced.stderr
    assert "YWxpY2U6cGE1NXdvcmQ" not in traced.stderr  # alice:pa55word in base64
