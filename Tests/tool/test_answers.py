"""What the tool answers (issue 21): usage without arguments, counts in the right number, a status
that names the service root and the state, help that works outside the repository, and a
--service that applies to its command only unless --save-service keeps it."""
import json
import os
import re
import sqlite3

from test_service import FLIGHT_V4, make_store

SUBCOMMANDS = ["store", "metadata", "parse", "request", "explain", "route", "download", "upload", "status", "archive"]


def stored_root_and_delta_links(path):
    connection = sqlite3.connect(path)
    try:
        root = connection.execute("SELECT value FROM ood_store_info WHERE key = 'service_root'").fetchone()[0]
        links = [row[0] for row in connection.execute("SELECT delta_link FROM ood_defining_request ORDER BY position")]
        return root, links
    finally:
        connection.close()


def test_no_arguments_print_the_usage_and_exit_64(tool):
    result = tool()
    assert result.returncode == 64
    assert result.stdout == ""
    assert "USAGE: offline-odata <subcommand>" in result.stderr
    for name in SUBCOMMANDS:
        assert name in result.stderr


def test_the_help_examples_need_no_file_of_the_repository(tool):
    for command in [[], *[[name] for name in SUBCOMMANDS if name != "store"], ["store", "create"], ["store", "info"]]:
        text = tool(*command, "--help").stdout
        for folder in ("Examples/", "Tests/", ".venv", "Benchmarks/"):
            assert folder not in text, f"offline-odata {' '.join(command)} --help mentions {folder}"


def test_counts_are_in_the_right_number(tool, tmp_path):
    one = tool("store", "create", tmp_path / "one.store", "--metadata", FLIGHT_V4,
               "--defining", "Agencies=TravelagencyCollection")
    assert one.returncode == 0, one.stderr
    assert "4 entity sets, 1 defining request)" in one.stdout
    two = tool("store", "create", tmp_path / "two.store", "--metadata", FLIGHT_V4,
               "--defining", "Agencies=TravelagencyCollection", "--defining", "Carriers=CarrierCollection")
    assert "4 entity sets, 2 defining requests)" in two.stdout


def test_status_names_the_service_root_and_the_state(tool, tmp_path, v4):
    path = make_store(tool, tmp_path, v4.service_root)
    before = tool("status", path)
    assert before.stdout.splitlines()[:2] == [f"service: {v4.service_root}", "state: never downloaded; nothing to upload"]
    assert tool("download", path, "--subset", "Agencies").returncode == 0
    created = tool("request", path, "--method", "POST", "TravelagencyCollection",
                   "--body", '{"agencynum":"99000011","name":"Status Travel","country":"IT"}')
    assert created.returncode == 0, created.stderr
    lines = tool("status", path).stdout.splitlines()
    assert re.fullmatch(r"state: partly downloaded \(last [0-9T:.Z-]+\); 1 request waiting for upload", lines[1]), lines[1]
    state = json.loads(tool("status", path, "--json").stdout)
    assert state["serviceRoot"] == v4.service_root
    assert state["state"]["download"] == "partial" and state["state"]["queued"] == 1
    assert state["state"]["lastDownload"] == state["definingRequests"][0]["lastDownload"]
    assert state["state"]["inDoubt"] == 0 and state["state"]["archived"] == 0


def test_a_command_line_service_root_applies_to_that_command_only(tool, tmp_path, v4):
    path = make_store(tool, tmp_path, v4.service_root)
    first = tool("download", path, "--json")
    assert first.returncode == 0, first.stderr
    root, links = stored_root_and_delta_links(path)
    assert root == v4.service_root
    # Read-only or not, a --service of one command leaves the stored root as it was ...
    assert tool("route", path, "TravelagencyCollection", "--service", "http://127.0.0.1:1/").returncode == 0
    dead = tool("download", path, "--service", "http://127.0.0.1:1/", "--timeout", "5")
    # ... and its download goes there: a service that is not there is an error, never "1 changes".
    assert dead.returncode == 1, dead.stdout
    assert "127.0.0.1:1" in dead.stderr or "connect" in dead.stderr.lower(), dead.stderr
    assert stored_root_and_delta_links(path) == (root, links)
    again = tool("download", path, "--json")
    assert again.returncode == 0, again.stderr


def test_save_service_keeps_the_root_and_drops_the_old_services_delta_links(tool, tmp_path, v4):
    path = make_store(tool, tmp_path, v4.service_root)
    connection = sqlite3.connect(path)
    with connection:
        connection.execute("UPDATE ood_defining_request SET delta_link = 'http://old.example/svc/Agencies?$deltatoken=1'")
    connection.close()
    # A delta link of another service is not followed: the download is a full one, from this service.
    full = tool("download", path, "--json")
    assert full.returncode == 0, full.stderr
    assert [d["delta"] for d in json.loads(full.stdout)["downloads"]] == [False, False]
    alias = v4.service_root.replace("127.0.0.1", "localhost")
    saved = tool("download", path, "--service", alias, "--save-service", "--json")
    assert saved.returncode == 0, saved.stderr
    root, links = stored_root_and_delta_links(path)
    assert root == alias
    refused = tool("download", path, "--save-service")
    assert refused.returncode == 64 and "--save-service needs --service" in refused.stderr
