"""The tool's consistent shape (issue 10): every subcommand's --help has a runnable example and its
exit codes, every read-only subcommand prints one JSON document with the keys its --help documents,
people get aligned tables, and a mistyped store path is refused without creating a file."""
import json
import os
import re

import pytest

FLIGHT = os.path.join(os.path.dirname(__file__), "..", "..", "Examples", "FlightSample")
FLIGHT_V4 = os.path.join(FLIGHT, "metadata-v4.xml")

#: Every command that has a --help of its own: the groups and the leaves.
COMMANDS = [[], ["store"], ["store", "create"], ["store", "info"], ["store", "load"], ["metadata"], ["parse"],
            ["request"], ["explain"], ["route"], ["download"], ["upload"], ["status"], ["archive"]]


def example_lines(help_text):
    """The lines of the help's Example(s) blocks, as printed."""
    lines = help_text.splitlines()
    found = []
    for index, line in enumerate(lines):
        if line.rstrip() in ("Example:", "Examples:"):
            for following in lines[index + 1:]:
                if not following.strip():
                    break
                found.append(following)
    return found


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "offline-odata")
def test_help_shows_an_example_of_the_command_itself(tool, command):
    result = tool(*command, "--help")
    assert result.returncode == 0, result.stderr
    examples = example_lines(result.stdout)
    assert examples, result.stdout
    # At least one example runs this very command, not only a neighbour.
    assert any(line.strip().startswith(" ".join(["offline-odata", *command])) for line in examples), examples
    assert "Exit codes:" in result.stdout


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: " ".join(c) or "offline-odata")
def test_help_examples_are_not_broken_by_wrapping(tool, command):
    """An example wrapped by the help formatter would paste as two commands: each line is a command,
    a continuation of one (after a trailing backslash) indented deeper, or a command's output."""
    examples = example_lines(tool(*command, "--help").stdout)
    for previous, line in zip([""] + examples, examples):
        assert line.startswith("  "), f"an example line lost its indentation (wrapped?): {line!r}"
        if previous.endswith("\\"):
            assert line.startswith("      "), f"a continuation line is not indented: {line!r}"
        else:
            assert line.strip().startswith(("offline-odata ", "OFFLINE_ODATA_PASSWORD=", "curl ")), line


def test_the_root_help_names_the_exit_codes_the_password_variable_and_an_example(tool):
    text = " ".join(tool("--help").stdout.split())
    assert "Exit codes: 0 success; 1" in text and "64 the command line was wrong" in text
    assert "OFFLINE_ODATA_PASSWORD" in text and "never a command-line argument" in text
    assert "OFFLINE_ODATA_TOKEN" in text
    assert "offline-odata download travel.store" in text


@pytest.mark.parametrize("command", [["download"], ["upload"], ["request"]], ids=" ".join)
def test_the_service_options_are_the_same_on_every_command_that_talks_to_the_service(tool, command):
    text = tool(*command, "--help").stdout
    for option in ("--service <service>", "--user <user>", "--token <token>", "--insecure", "--timeout <timeout>"):
        assert option in text, option
    assert "OFFLINE_ODATA_PASSWORD" in text
    assert "--password" not in text


@pytest.fixture
def store(tool, tmp_path):
    """A V4 flight store holding two agencies for 'Agencies', with one create queued."""
    path = str(tmp_path / "shape.store")
    created = tool("store", "create", path, "--metadata", FLIGHT_V4, "--service", "http://127.0.0.1:9/",
                   "--defining", "Agencies=TravelagencyCollection?$filter=country eq 'US'")
    assert created.returncode == 0, created.stderr
    page = tmp_path / "page.json"
    page.write_text(json.dumps({"value": [
        {"agencynum": "00000001", "name": "Boston Travel", "city": "Boston", "country": "US"},
        {"agencynum": "00000002", "name": "Big Apple", "city": "New York", "country": "US"}]}))
    assert tool("store", "load", path, "--defining", "Agencies", str(page)).returncode == 0
    queued = tool("request", path, "--method", "POST", "TravelagencyCollection", "--transaction-id", "t1",
                  "--body", '{"agencynum":"00000003","name":"Chicago Tours","country":"US"}')
    assert queued.returncode == 0, queued.stderr
    return path


#: Each read-only command, its arguments (STORE is replaced by the store's path), and the keys of
#: its JSON object (for an array, of each element).
READ_ONLY = {
    "metadata": (["metadata", FLIGHT_V4], ["file", "version", "edmxVersion", "namespaces", "entityTypes", "complexTypes",
                                           "enumTypes", "entitySets", "singletons", "functionImports", "actionImports",
                                           "functions", "actions", "diagnostics"]),
    "parse": (["parse", "--metadata", FLIGHT_V4, "TravelagencyCollection('1')"],
              ["target", "entitySet", "entityType", "rootSet", "key"]),
    "explain": (["explain", "STORE", "TravelagencyCollection?$filter=country eq 'US' and city eq 'Boston'"],
                ["sql", "parameters", "countSQL", "insideScope", "definingRequests", "plan"]),
    "route": (["route", "STORE", "TravelagencyCollection"], ["destination", "reason", "coveringRequests"]),
    "status": (["status", "STORE"], ["serviceRoot", "state", "queue", "errorArchive", "definingRequests", "indexes",
                                     "sync", "resumable", "serviceModelChange"]),
    "log": (["log", "STORE"], ["capacity", "entries"]),
    "store info": (["store", "info", "STORE"], ["path", "formatVersion", "dialect", "namespaces", "serviceRoot",
                                                "entitySets", "definingRequests", "encryption"]),
    "request": (["request", "STORE", "TravelagencyCollection?$filter=city eq 'Boston'"],
                ["status", "contentType", "route", "nextLink", "body"]),
}


@pytest.mark.parametrize("name", READ_ONLY)
def test_read_only_commands_print_json_with_the_keys_their_help_documents(tool, store, name):
    arguments, keys = READ_ONLY[name]
    result = tool(*[store if a == "STORE" else a for a in arguments], "--json")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("\n") == 1, "one JSON document on one line"
    data = json.loads(result.stdout)
    assert list(data) == keys
    documented = tool(*name.split(), "--help").stdout
    for key in keys:
        assert f'"{key}"' in documented, f"{name} --help does not document the key {key!r}"


def test_archive_json_is_one_object_documented_in_its_help(tool, store):
    result = tool("archive", store, "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"errorArchive": []}
    documented = tool("archive", "--help").stdout
    for key in ("errorArchive", "id", "method", "url", "httpStatus", "message", "failedAt", "kind"):
        assert f'"{key}"' in documented


def test_explain_json_says_which_defining_request_covers_the_read(tool, store):
    inside = json.loads(tool("explain", store, "TravelagencyCollection?$filter=country eq 'US' and city eq 'Boston'", "--json").stdout)
    assert inside["insideScope"] is True and inside["definingRequests"] == ["Agencies"]
    assert inside["sql"].startswith("SELECT") and inside["parameters"] == ["'US'", "'Boston'"]
    outside = json.loads(tool("explain", store, "TravelagencyCollection?$filter=city eq 'Rome'", "--json").stdout)
    assert outside["insideScope"] is False and outside["definingRequests"] == []


def test_status_json_holds_the_queued_create_and_the_defining_request(tool, store):
    data = json.loads(tool("status", store, "--json").stdout)
    assert [(q["method"], q["url"], q["transactionID"]) for q in data["queue"]] == [("POST", "TravelagencyCollection", "t1")]
    assert list(data["queue"][0]) == ["id", "method", "url", "body", "entitySet", "transactionID", "createdAt", "state", "mergeable"]
    assert data["queue"][0]["state"] == "pending"  # not sent yet
    assert [(d["name"], d["hasDeltaLink"]) for d in data["definingRequests"]] == [("Agencies", False)]


def test_request_json_wraps_the_answer(tool, store):
    read = json.loads(tool("request", store, "TravelagencyCollection?$filter=city eq 'Boston'", "--json").stdout)
    assert read["status"] == 200 and "json" in read["contentType"] and read["route"] is None
    assert [a["name"] for a in read["body"]["value"]] == ["Boston Travel"]
    # Three agencies: two loaded, one created offline. $count is text, kept as its JSON number.
    count = json.loads(tool("request", store, "TravelagencyCollection/$count", "--json").stdout)
    assert count["body"] == 3 and count["contentType"].startswith("text/plain")
    mixed = json.loads(tool("request", store, "--mode", "mixed", "TravelagencyCollection('00000002')", "--json").stdout)
    assert mixed["route"] == {"destination": "offline",
                              "reason": "TravelagencyCollection is covered by the defining request 'Agencies'"}
    assert mixed["body"]["name"] == "Big Apple"
    deleted = json.loads(tool("request", store, "--method", "DELETE", "TravelagencyCollection('00000001')", "--json").stdout)
    # No body, no content type (issue 39: a 204 carried application/json).
    assert deleted == {"status": 204, "contentType": None, "route": None, "nextLink": None, "body": None}


def test_the_text_forms_are_tables_for_people(tool, store):
    lines = tool("status", store).stdout.splitlines()
    assert lines[0].startswith("service: http")
    assert lines[1] == "state: never downloaded; 1 request waiting for upload"
    lines = lines[2:]
    assert lines[0] == "queue: 1 request waiting for upload"
    assert lines[1].split() == ["ID", "METHOD", "URL", "TRANSACTION", "QUEUED", "AT"]
    row = lines[2].split()
    assert row[1:4] == ["POST", "TravelagencyCollection", "t1"]
    assert lines[1].index("URL") == lines[2].index("TravelagencyCollection")
    assert lines[3] == "error archive: 0"
    assert lines[4] == "defining requests: 1"
    assert lines[6].split()[:3] == ["Agencies", "never", "no"]
    assert all(line == line.rstrip() for line in lines), "no trailing blanks"
    assert tool("archive", store).stdout == "error archive: 0\n"


def test_metadata_json_errors_are_json_too(tool, tmp_path):
    broken = tmp_path / "broken.xml"
    broken.write_text("<edmx:Edmx Version='4.0'")
    result = tool("metadata", str(broken), "--json")
    # On standard output, in the shape of every --json error (issue 39); the message on standard error.
    assert result.returncode == 1
    error = json.loads(result.stdout)["error"]
    assert error["message"] and error["line"] >= 1 and error["code"] == "OOD_METADATA"
    assert error["message"] in result.stderr
    missing = tool("metadata", str(tmp_path / "missing.xml"))
    assert missing.returncode == 1 and "missing.xml" in missing.stderr


def test_parse_takes_json_and_prints_the_same_document(tool):
    url = "TravelagencyCollection?$filter=country eq 'US'&$top=2"
    plain = tool("parse", "--metadata", FLIGHT_V4, url)
    flagged = tool("parse", "--metadata", FLIGHT_V4, url, "--json")
    assert plain.returncode == flagged.returncode == 0
    assert json.loads(plain.stdout) == json.loads(flagged.stdout)
    assert json.loads(flagged.stdout)["top"] == 2


def test_store_inspect_is_store_info(tool, store):
    assert json.loads(tool("store", "inspect", store, "--json").stdout) == json.loads(tool("store", "info", store, "--json").stdout)


MISSING = {
    "explain": ["explain", "MISSING", "TravelagencyCollection"],
    "request": ["request", "MISSING", "TravelagencyCollection"],
    "route": ["route", "MISSING", "TravelagencyCollection"],
    "download": ["download", "MISSING"],
    "upload": ["upload", "MISSING"],
    "status": ["status", "MISSING"],
    "archive": ["archive", "MISSING"],
    "store info": ["store", "info", "MISSING"],
    "store load": ["store", "load", "MISSING", "--defining", "Agencies", "page.json"],
}


@pytest.mark.parametrize("name", MISSING)
def test_a_missing_store_is_refused_by_name_and_not_created(tool, tmp_path, name):
    missing = tmp_path / "typo.store"
    result = tool(*[str(missing) if a == "MISSING" else a for a in MISSING[name]])
    assert result.returncode == 1
    assert f"'{missing}' does not exist" in result.stderr, result.stderr
    assert not missing.exists()
