"""Every `--json` command prints exactly one JSON object on standard output, also when it fails,
and its errors all have one shape: {"error": {"code", "status", "message"[, "httpStatus",
"offset", "line", "column"]}} (issue 39). The message is on standard error too, for people."""
import json

import pytest

from test_service import FLIGHT_V4

MISSING = "missing.store"

# Each command that takes --json, failing because its store (or document) is not there.
FAILING = [
    ["status", MISSING],
    ["store", "info", MISSING],
    ["store", "check", MISSING],
    ["archive", MISSING],
    ["log", MISSING],
    ["queue", "compact", MISSING],
    ["request", MISSING, "TravelagencyCollection"],
    ["explain", MISSING, "TravelagencyCollection"],
    ["route", MISSING, "TravelagencyCollection"],
    ["download", MISSING],
    ["upload", MISSING],
    ["metadata", "missing.xml"],
    ["parse", "--metadata", "missing.xml", "TravelagencyCollection"],
]

ERROR_KEYS = {"code", "status", "message", "httpStatus", "offset", "line", "column"}


def one_error_object(stdout):
    lines = stdout.splitlines()
    assert len(lines) == 1, stdout
    document = json.loads(lines[0])
    assert isinstance(document, dict) and list(document) == ["error"], document
    error = document["error"]
    assert {"code", "status", "message"} <= set(error) <= ERROR_KEYS, error
    assert error["code"].startswith("OOD_") and isinstance(error["status"], int)
    return error


@pytest.mark.parametrize("command", FAILING, ids=lambda command: " ".join(command[:2]))
def test_a_failing_json_command_prints_one_error_object(tool, tmp_path, command):
    result = tool(*command, "--json", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    error = one_error_object(result.stdout)
    assert error["message"] and error["message"] in result.stderr


def test_a_broken_metadata_document_gives_its_line_and_column_in_the_same_shape(tool, tmp_path):
    document = tmp_path / "broken.xml"
    document.write_text('<?xml version="1.0"?>\n<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">\n<oops>')
    result = tool("metadata", document, "--json")
    assert result.returncode == 1
    error = one_error_object(result.stdout)
    assert error["code"] == "OOD_METADATA" and error["line"] >= 2 and "column" in error


@pytest.mark.parametrize("command", [["status"], ["download", "a.store", "--page-size", "many"], ["store", "check"]],
                         ids=["missing-argument", "bad-value", "store-check"])
def test_a_usage_error_with_json_is_one_error_object_too(tool, tmp_path, command):
    result = tool(*command, "--json", cwd=tmp_path)
    assert result.returncode == 64, result.stderr
    error = one_error_object(result.stdout)
    assert error["code"] == "OOD_MISUSE"
    assert "Usage:" in result.stderr


def test_json_on_success_is_one_object_for_the_store_commands(tool, tmp_path):
    path = tmp_path / "flight.store"
    created = tool("store", "create", path, "--metadata", FLIGHT_V4, "--defining", "Agencies=TravelagencyCollection")
    assert created.returncode == 0, created.stderr
    for command in (["status", path], ["store", "info", path], ["store", "check", path], ["archive", path],
                    ["log", path], ["queue", "compact", path], ["explain", path, "TravelagencyCollection"],
                    ["request", path, "TravelagencyCollection"], ["metadata", FLIGHT_V4]):
        result = tool(*command, "--json")
        assert result.returncode == 0, (command, result.stderr)
        lines = result.stdout.splitlines()
        assert len(lines) == 1 and isinstance(json.loads(lines[0]), dict), (command, result.stdout)
