"""The command-line tool: every subcommand, its help, its success and its errors."""
import json
import os
import re
import sqlite3
from pathlib import Path


def header_version():
    import os
    header = os.path.join(os.path.dirname(__file__), "..", "..", "include", "offline_odata.h")
    with open(header, encoding="utf-8") as f:
        return re.search(r'#define OOD_VERSION "([^"]+)"', f.read()).group(1)


def test_version(tool):
    result = tool("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == header_version()


def test_help_names_the_exit_codes(tool):
    result = tool("--help")
    assert result.returncode == 0
    assert "Exit codes" in result.stdout
    assert "store" in result.stdout


def test_store_create_help_has_an_example(tool):
    result = tool("store", "create", "--help")
    assert result.returncode == 0
    assert "Example" in result.stdout and "offline-odata store create" in result.stdout


def test_store_create_makes_a_store(tool, tmp_path):
    path = str(tmp_path / "new.store")
    result = tool("store", "create", path)
    assert result.returncode == 0, result.stderr
    assert "created" in result.stdout and "format version 14" in result.stdout and "wal" in result.stdout
    connection = sqlite3.connect(path)
    assert connection.execute("SELECT value FROM ood_store_info WHERE key='format_version'").fetchone()[0] == "14"
    connection.close()
    assert os.stat(path).st_mode & 0o777 == 0o600  # the user's data: readable by its owner only


def test_a_service_root_with_a_password_is_refused_and_no_store_is_made(tool, tmp_path):
    path = tmp_path / "secret.store"
    metadata = Path(__file__).resolve().parents[2] / "Examples" / "FlightSample" / "metadata-v4.xml"
    result = tool("store", "create", str(path), "--metadata", str(metadata), "--service", "http://alice:s3cret@127.0.0.1:9/")
    assert result.returncode == 1
    assert "carries a password" in result.stderr and "s3cret" not in result.stderr + result.stdout
    assert not path.exists()


def test_store_create_twice_says_it_is_already_a_store(tool, tmp_path):
    path = str(tmp_path / "again.store")
    assert tool("store", "create", path).returncode == 0
    result = tool("store", "create", path)
    assert result.returncode == 0
    assert "already a store" in result.stdout


def test_store_create_in_a_missing_folder_fails_with_the_message(tool, tmp_path):
    result = tool("store", "create", str(tmp_path / "missing" / "x.store"))
    assert result.returncode == 1
    assert "cannot open" in result.stderr


def test_store_create_on_a_file_that_is_not_a_store(tool, tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("plain text " * 200)
    result = tool("store", "create", str(path))
    assert result.returncode == 1
    assert "not an OfflineOData store" in result.stderr
    assert path.read_text() == "plain text " * 200


def test_store_create_without_a_path_is_a_usage_error(tool):
    result = tool("store", "create")
    assert result.returncode == 64
    assert "Missing expected argument" in result.stderr


FLIGHT_V4 = os.path.join(os.path.dirname(__file__), "..", "..", "Examples", "FlightSample", "metadata-v4.xml")


def test_store_create_for_a_service_and_info(tool, tmp_path):
    path = str(tmp_path / "travel.store")
    result = tool("store", "create", path, "--metadata", FLIGHT_V4,
                  "--defining", "Agencies=TravelagencyCollection?$top=5", "--defining", "Flights=FlightCollection",
                  "--service", "http://127.0.0.1:1/")
    assert result.returncode == 0, result.stderr
    assert "created for RMTSAMPLEFLIGHT (OData V4, 4 entity sets, 2 defining requests)" in result.stdout
    info = tool("store", "info", path, "--json")
    assert info.returncode == 0, info.stderr
    data = json.loads(info.stdout)
    assert data["dialect"] == "v4"
    assert data["serviceRoot"] == "http://127.0.0.1:1/"
    assert [r["name"] for r in data["definingRequests"]] == ["Agencies", "Flights"]
    assert "FlightCollection" in data["entitySets"]
    text = tool("store", "info", path).stdout.splitlines()
    # The defining requests are a table for people: a header, then one aligned row each.
    header = next(i for i, line in enumerate(text) if line.split() == ["NAME", "LAST", "DOWNLOAD", "DELTA", "LINK", "URL"])
    assert text[header + 1].split() == ["Agencies", "never", "no", "TravelagencyCollection?$top=5"]
    assert text[header + 2].split() == ["Flights", "never", "no", "FlightCollection"]
    assert text[header].index("URL") == text[header + 1].index("TravelagencyCollection") == text[header + 2].index("FlightCollection")


def test_store_create_refuses_a_function_import(tool, tmp_path):
    path = tmp_path / "f.store"
    result = tool("store", "create", str(path), "--metadata", FLIGHT_V4, "--defining", "X=GetAgencyDetails(agencynum='1')")
    assert result.returncode == 1
    assert "does not run operations" in result.stderr
    assert not path.exists()


def test_store_create_with_broken_metadata(tool, tmp_path):
    broken = tmp_path / "broken.xml"
    broken.write_text("<edmx:Edmx Version='4.0'")
    result = tool("store", "create", str(tmp_path / "b.store"), "--metadata", str(broken))
    assert result.returncode == 1
    assert "line" in result.stderr


def test_store_create_usage_errors(tool, tmp_path):
    assert tool("store", "create", str(tmp_path / "x.store"), "--defining", "A=B").returncode == 64
    assert tool("store", "create", str(tmp_path / "x.store"), "--metadata", FLIGHT_V4, "--v2", "--v4").returncode == 64


def test_store_info_help_and_errors(tool, tmp_path):
    assert "Example" in tool("store", "info", "--help").stdout
    missing = tool("store", "info", str(tmp_path / "missing.store"))
    assert missing.returncode == 1 and "does not exist" in missing.stderr
    tool("store", "create", str(tmp_path / "empty.store"))
    empty = tool("store", "info", str(tmp_path / "empty.store"))
    assert empty.returncode == 1 and "without a service model" in empty.stderr


import pytest

SUBCOMMANDS = [["store", "create"], ["store", "info"], ["store", "load"], ["metadata"], ["parse"], ["request"], ["route"], ["explain"], ["download"], ["upload"], ["archive"],
               ["status"], ["watch"]]


@pytest.mark.parametrize("subcommand", SUBCOMMANDS, ids=" ".join)
def test_every_subcommand_has_help_with_an_example_and_exit_codes(tool, subcommand):
    result = tool(*subcommand, "--help")
    assert result.returncode == 0, result.stderr
    assert "Example" in result.stdout, result.stdout
    assert "Exit codes" in result.stdout, result.stdout


def test_the_top_level_help_lists_every_subcommand(tool):
    listed = tool("--help").stdout
    for subcommand in SUBCOMMANDS:
        assert f"  {subcommand[0]}" in listed


def test_status_and_request_on_a_store_without_service(tool, tmp_path):
    path = str(tmp_path / "s.store")
    assert tool("store", "create", path, "--metadata", FLIGHT_V4).returncode == 0
    data = json.loads(tool("status", path, "--json").stdout)
    assert data == {"serviceRoot": None, "queue": [], "errorArchive": [], "definingRequests": [], "indexes": [],
                    "state": {"download": "none", "lastDownload": None, "queued": 0, "inDoubt": 0, "archived": 0},
                    "sync": {"downloads": [], "queuedRequests": 0, "oldestQueuedAt": None, "oldestQueuedAgeSeconds": None,
                             "queuedInDoubt": 0, "archivedRequests": 0, "archivedInDoubt": 0, "lastUpload": None},
                    "resumable": [], "serviceModelChange": None}
    assert tool("status", path).stdout.splitlines()[:2] == [
        "service: none (give one with --service and --save-service)", "state: no defining requests; nothing to upload"]
    created = tool("request", path, "--method", "POST", "TravelagencyCollection", "--body", '{"agencynum":"1","name":"A"}')
    assert created.returncode == 0, created.stderr
    queue = json.loads(tool("status", path, "--json").stdout)["queue"]
    assert [q["method"] for q in queue] == ["POST"]
    bad = tool("request", path, "--method", "POST", "TravelagencyCollection", "--body", '{"agencynum":"2","nosuch":1}')
    assert bad.returncode == 1 and "nosuch" in bad.stderr
    upload = tool("upload", path)
    assert upload.returncode == 1 and "no service root" in upload.stderr


FLIGHT_V2 = os.path.join(os.path.dirname(__file__), "..", "..", "Examples", "FlightSample", "metadata-v2.xml")


def test_parse_prints_the_bound_query(tool):
    result = tool("parse", "--metadata", FLIGHT_V4, "TravelagencyCollection?$filter=country eq 'US' and creditlimit gt 1000&$top=5")
    assert result.returncode == 0, result.stderr
    bound = json.loads(result.stdout)
    assert bound["target"] == "collection" and bound["entityType"] == "RMTSAMPLEFLIGHT.Travelagency"
    assert bound["top"] == 5
    assert bound["filter"]["operator"] == "and"
    assert bound["filter"]["right"]["left"] == {"kind": "property", "path": "creditlimit", "type": "Edm.Decimal"}
    assert bound["filter"]["right"]["right"]["type"] == "Edm.Decimal"


def test_parse_v2_literals_take_their_stored_form(tool):
    result = tool("parse", "--metadata", FLIGHT_V2, "FlightCollection?$filter=fldate gt datetime'2013-09-16T00:00'")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["filter"]["right"]["value"] == "2013-09-16T00:00:00.0000000Z"


def test_parse_errors_name_the_fault_and_its_offset(tool):
    unknown = tool("parse", "--metadata", FLIGHT_V4, "TravelagencyCollection?$filter=contry eq 'US'")
    assert unknown.returncode == 1
    assert "no property 'contry'" in unknown.stderr and "offset 31" in unknown.stderr
    syntax = tool("parse", "--metadata", FLIGHT_V4, "TravelagencyCollection?$filter=country eq")
    assert syntax.returncode == 1 and "offset" in syntax.stderr
    v2_only = tool("parse", "--metadata", FLIGHT_V4, "--v4", "TravelagencyCollection?$filter=substringof('a',name)")
    assert v2_only.returncode == 1
    operation = tool("parse", "--metadata", FLIGHT_V4, "GetFlightDetails(carrid='LH',connid='0400',fldate=2024-01-01)")
    assert operation.returncode == 0 and json.loads(operation.stdout)["target"] == "operation"


@pytest.mark.parametrize("subcommand", ["download", "upload"])
def test_download_and_upload_take_a_timeout(tool, subcommand, tmp_path):
    result = tool(subcommand, "--help")
    assert result.returncode == 0, result.stderr
    assert "--timeout" in result.stdout and "timed out" in result.stdout
    path = str(tmp_path / "t.store")
    assert tool("store", "create", path).returncode == 0
    assert tool(subcommand, path, "--timeout", "0").returncode == 64
    assert tool(subcommand, path, "--timeout=-1").returncode == 64


def test_store_load_pages_then_read_them(tool, tmp_path):
    path = str(tmp_path / "load.store")
    assert tool("store", "create", path, "--metadata", FLIGHT_V4, "--defining", "Agencies=TravelagencyCollection").returncode == 0
    page1 = tmp_path / "p1.json"
    page2 = tmp_path / "p2.json"
    page1.write_text(json.dumps({"value": [{"agencynum": "1", "name": "O'Brien & Co", "city": "Rome", "country": "IT"},
                                           {"agencynum": "2", "name": "Agency 100%", "city": "Beijing", "country": "CN"}],
                                 "@odata.nextLink": "TravelagencyCollection?$skiptoken=2"}))
    page2.write_text(json.dumps({"value": [{"agencynum": "3", "name": "Zürich Reisen", "city": "Zürich", "country": "CH"}]}))
    loaded = tool("store", "load", path, "--defining", "Agencies", str(page1), str(page2))
    assert loaded.returncode == 0, loaded.stderr
    assert "3 entities from 2 pages" in loaded.stdout
    read = tool("request", path, "TravelagencyCollection?$filter=city eq 'Zürich' or contains(name,'100%25')&$orderby=agencynum")
    assert read.returncode == 0, read.stderr
    assert [a["agencynum"] for a in json.loads(read.stdout)["value"]] == ["2", "3"]

    broken = tmp_path / "broken.json"
    broken.write_text('{"value":[{"agencynum":"4",}]}')
    failed = tool("store", "load", path, "--defining", "Agencies", str(page1), str(broken))
    assert failed.returncode == 1 and "offset" in failed.stderr
    unknown = tool("store", "load", path, "--defining", "Nope", str(page1))
    assert unknown.returncode == 1 and "no defining request named 'Nope'" in unknown.stderr
    assert tool("store", "load", "--help").returncode == 0


# Mixed mode: `route` (where a request would go, and why) and `request --mode online|mixed`.
# Port 9 (discard) is not listened on: nothing here reaches a service.
UNREACHABLE = "http://127.0.0.1:9/"


def mixed_store(tool, tmp_path, service=UNREACHABLE):
    """A V4 flight store whose defining request 'Agencies' covers TravelagencyCollection."""
    path = str(tmp_path / "mixed.store")
    arguments = ["store", "create", path, "--metadata", FLIGHT_V4, "--defining", "Agencies=TravelagencyCollection?$filter=country eq 'US'"]
    if service:
        arguments += ["--service", service]
    created = tool(*arguments)
    assert created.returncode == 0, created.stderr
    return path


def test_route_of_a_covered_set_goes_offline_with_its_defining_request(tool, tmp_path):
    path = mixed_store(tool, tmp_path)
    text = tool("route", path, "TravelagencyCollection?$filter=city eq 'Boston'")
    assert text.returncode == 0, text.stderr
    assert text.stdout == "offline  TravelagencyCollection is covered by the defining request 'Agencies'\n"
    data = json.loads(tool("route", path, "TravelagencyCollection('00000001')", "--method", "PATCH", "--json").stdout)
    assert data == {"destination": "offline", "reason": "TravelagencyCollection is covered by the defining request 'Agencies'",
                    "coveringRequests": ["Agencies"]}


def test_route_of_a_function_import_goes_online(tool, tmp_path):
    path = mixed_store(tool, tmp_path)
    result = tool("route", path, "GetAgencyDetails(agencynum='00000001')")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("online  ") and "function import" in result.stdout
    data = json.loads(tool("route", path, "GetAgencyDetails(agencynum='00000001')", "--json").stdout)
    assert data["destination"] == "online" and "function import" in data["reason"] and data["coveringRequests"] == []


def test_route_of_an_uncovered_set_goes_online(tool, tmp_path):
    path = mixed_store(tool, tmp_path)
    data = json.loads(tool("route", path, "FlightCollection", "--json").stdout)
    assert data == {"destination": "online", "reason": "no defining request covers FlightCollection", "coveringRequests": []}


def test_route_without_a_service_root_keeps_everything_offline_unless_service_is_given(tool, tmp_path):
    path = mixed_store(tool, tmp_path, service=None)
    alone = tool("route", path, "FlightCollection")
    assert alone.returncode == 0, alone.stderr
    assert alone.stdout.startswith("offline  ") and "only the offline store is configured" in alone.stdout
    given = json.loads(tool("route", path, "FlightCollection", "--service", UNREACHABLE, "--json").stdout)
    assert given["destination"] == "online"


def test_route_help_and_errors(tool, tmp_path):
    help_text = tool("route", "--help")
    assert help_text.returncode == 0 and "Example" in help_text.stdout and "Exit codes" in help_text.stdout
    missing = tool("route", str(tmp_path / "missing.store"), "TravelagencyCollection")
    assert missing.returncode == 1 and "does not exist" in missing.stderr
    not_a_store = tmp_path / "notes.txt"
    not_a_store.write_text("not a store\n")
    refused = tool("route", str(not_a_store), "TravelagencyCollection")
    assert refused.returncode == 1 and "not an OfflineOData store" in refused.stderr
    assert tool("route", mixed_store(tool, tmp_path)).returncode == 64


def test_request_mode_help_has_a_mixed_example(tool):
    result = tool("request", "--help")
    assert result.returncode == 0
    words = " ".join(result.stdout.replace("\\\n", " ").split())
    assert "--mode mixed \"GetAgencyDetails(agencynum='00000001')\"" in words
    assert "--mode <mode>" in result.stdout and "--service" in result.stdout


def test_request_mode_online_against_an_unreachable_service_fails_with_the_network_error(tool, tmp_path):
    path = mixed_store(tool, tmp_path, service=None)
    result = tool("request", path, "--mode", "online", "--service", UNREACHABLE, "TravelagencyCollection")
    assert result.returncode == 1
    assert "cannot connect" in result.stderr and "127.0.0.1" in result.stderr, result.stderr
    assert result.stdout == ""


def test_request_mode_online_without_a_service_root_says_so(tool, tmp_path):
    path = mixed_store(tool, tmp_path, service=None)
    result = tool("request", path, "--mode", "online", "TravelagencyCollection")
    assert result.returncode == 1 and "no service root" in result.stderr, result.stderr


def test_request_mode_mixed_answers_a_covered_read_from_the_store(tool, tmp_path):
    path = mixed_store(tool, tmp_path)
    page = tmp_path / "agencies.json"
    page.write_text(json.dumps({"value": [{"agencynum": "00000001", "name": "Boston Travel", "city": "Boston", "country": "US"},
                                          {"agencynum": "00000002", "name": "Big Apple", "city": "New York", "country": "US"}]}))
    assert tool("store", "load", path, "--defining", "Agencies", str(page)).returncode == 0
    result = tool("request", path, "--mode", "mixed", "TravelagencyCollection?$filter=city eq 'Boston'")
    assert result.returncode == 0, result.stderr
    assert [a["name"] for a in json.loads(result.stdout)["value"]] == ["Boston Travel"]
    assert "route: offline (TravelagencyCollection is covered by the defining request 'Agencies')" in result.stderr
    # The function import goes online, where nothing listens: the route is said, then the network error.
    call = tool("request", path, "--mode", "mixed", "GetAgencyDetails(agencynum='00000001')")
    assert call.returncode == 1
    assert "route: online" in call.stderr and "function import" in call.stderr and "cannot connect" in call.stderr


def test_request_service_options_need_an_online_or_mixed_mode(tool, tmp_path):
    path = mixed_store(tool, tmp_path)
    assert tool("request", path, "--service", UNREACHABLE, "TravelagencyCollection").returncode == 64
    assert tool("request", path, "--mode", "sideways", "TravelagencyCollection").returncode == 64
    # The default stays offline: the store answers, with no route line.
    offline = tool("request", path, "TravelagencyCollection")
    assert offline.returncode == 0 and offline.stderr == "" and json.loads(offline.stdout)["value"] == []


def test_a_file_that_never_ends_is_refused_not_read_until_memory_runs_out(tool):
    result = tool("metadata", "/dev/zero")
    assert result.returncode == 1
    assert "'/dev/zero' is larger than 256 MiB" in result.stderr


def test_turning_tls_verification_off_is_said_every_time(tool, tmp_path):
    path = tmp_path / "insecure.store"
    metadata = Path(__file__).resolve().parents[2] / "Examples" / "FlightSample" / "metadata-v4.xml"
    created = tool("store", "create", str(path), "--metadata", str(metadata), "--service", "https://127.0.0.1:9/",
                   "--defining", "Agencies=TravelagencyCollection")
    assert created.returncode == 0, created.stderr
    for _ in range(2):
        result = tool("download", str(path), "--insecure")
        assert result.returncode == 1  # nothing listens there
        assert "warning: --insecure: the service's TLS certificate is not verified" in result.stderr
    assert "warning" not in tool("download", str(path)).stderr
