"""What the tool shows of a store's syncs (issue 25): `status` (text and --json) with the last
download of each defining request, the queue's age and the last upload; `log` (text and --json)
with the bounded sync log (the progress bar's test is in Tests/tool/test_service.py). Against the
real services."""
import json
import sqlite3
from datetime import datetime, timezone

from conftest import get_json, status

US = "TravelagencyCollection?$filter=country eq 'US'"
COUNTED = {"v4": US + "&$count=true", "v2": US + "&$inlinecount=allpages"}


def parse(timestamp):
    return datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)


def served_us_agencies(server, version):
    if version == "v4":
        return len(get_json(server.service_root + "TravelagencyCollection?$filter=country%20eq%20'US'")["value"])
    return len(get_json(server.service_root + "TravelagencyCollection?$filter=country%20eq%20'US'")["d"]["results"])


def log(tool, path, *arguments):
    result = tool("log", path, "--json", *arguments)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def check_download_in_status_and_log(tool, make_store, server, version):
    path = make_store(server, version, ("Agencies", COUNTED[version]))
    started = datetime.now(timezone.utc).replace(microsecond=0)
    downloaded = tool("download", path, "--json")
    assert downloaded.returncode == 0, downloaded.stderr
    [outcome] = json.loads(downloaded.stdout)["downloads"]
    served = served_us_agencies(server, version)
    assert outcome["entities"] == served == outcome["expectedEntities"] and outcome["bytes"] > served * 20

    [download] = status(tool, path)["sync"]["downloads"]
    assert download["definingRequest"] == "Agencies" and download["outcome"] == "succeeded"
    assert (download["entities"], download["bytes"], download["pages"]) == (served, outcome["bytes"], outcome["pages"])
    assert download["expectedEntities"] == served and download["message"] is None
    assert started <= parse(download["finishedAt"]) <= datetime.now(timezone.utc)
    assert download["lastSuccessAt"] == download["finishedAt"] and 0 <= download["durationMs"] < 60_000

    entries = log(tool, path)
    assert entries["capacity"] == 1000
    [entry] = entries["entries"]
    assert (entry["kind"], entry["definingRequest"], entry["entities"], entry["bytes"], entry["remaining"]) == \
        ("download", "Agencies", served, outcome["bytes"], 0)
    assert entry["at"] == download["finishedAt"]

    text = tool("status", path).stdout
    assert "last downloads: 1" in text and "succeeded" in text and f"{served}/{served}" in text
    assert "last upload: none" in text and "in doubt: 0 queued, 0 archived" in text
    table = tool("log", path).stdout
    assert table.startswith("log: 1 entry\n") and "download" in table and "Agencies" in table


def test_a_v4_download_shows_in_status_and_the_log(tool, make_store, v4):
    check_download_in_status_and_log(tool, make_store, v4, "v4")


def test_a_v2_download_shows_in_status_and_the_log(tool, make_store, v2):
    check_download_in_status_and_log(tool, make_store, v2, "v2")


def test_an_upload_with_a_refusal_shows_in_the_log_and_the_archive_count(tool, make_store, v4):
    path = make_store(v4, "v4", ("Agencies", US))
    assert tool("download", path).returncode == 0
    taken = get_json(v4.service_root + "TravelagencyCollection?$filter=country%20ne%20'US'&$top=1")["value"][0]["agencynum"]
    for body in ({"agencynum": "99000530", "name": "Seen", "country": "US"},
                 {"agencynum": taken, "name": "Clash", "country": "US"}):
        assert tool("request", path, "--method", "POST", "TravelagencyCollection", "--body", json.dumps(body)).returncode == 0
    assert "oldest queued request: 20" in tool("status", path).stdout
    waiting = status(tool, path)["sync"]
    assert waiting["queuedRequests"] == 2 and 0 <= waiting["oldestQueuedAgeSeconds"] < 60
    assert parse(waiting["oldestQueuedAt"]) <= datetime.now(timezone.utc)

    uploaded = tool("upload", path)
    assert uploaded.returncode == 3, uploaded.stderr  # some went to the error archive
    sync = status(tool, path)["sync"]
    assert (sync["queuedRequests"], sync["oldestQueuedAt"], sync["archivedRequests"], sync["archivedInDoubt"]) == (0, None, 1, 0)
    upload = sync["lastUpload"]
    assert (upload["sent"], upload["archived"], upload["outcome"]) == (1, 1, "succeeded") and upload["bytes"] > 0
    [archived] = json.loads(tool("archive", path, "--json").stdout)["errorArchive"]
    upload_entry, refusal, download = log(tool, path)["entries"]
    assert (upload_entry["kind"], upload_entry["entities"], upload_entry["remaining"]) == ("upload", 1, 0)
    assert (refusal["kind"], refusal["requestID"], refusal["outcome"]) == ("refusal", archived["id"], "conflict")
    assert download["kind"] == "download"
    assert [e["kind"] for e in log(tool, path, "--limit", "1")["entries"]] == ["upload"]
    assert "last upload: succeeded" in tool("status", path).stdout


def test_a_failed_download_is_recorded_with_its_message(tool, make_store, v4, tmp_path):
    path = make_store(v4, "v4", ("Agencies", US))
    assert tool("download", path).returncode == 0
    failed = tool("download", path, "--service", "http://127.0.0.1:9/")  # nothing listens on port 9
    assert failed.returncode == 1
    [download] = status(tool, path)["sync"]["downloads"]
    assert download["outcome"] == "failed" and download["message"] and download["lastSuccessAt"] < download["finishedAt"]
    assert [e["outcome"] for e in log(tool, path)["entries"]] == ["failed", "succeeded"]


def test_the_log_stays_bounded(tool, make_store, v4):
    path = make_store(v4, "v4", ("Agencies", US))
    with sqlite3.connect(path) as connection:
        connection.executemany("INSERT INTO ood_sync_log (at, kind, outcome, defining_request) "
                               "VALUES ('2026-01-01T00:00:00.000Z', 'download', 'succeeded', ?)",
                               [(f"Old{n}",) for n in range(1000)])
    connection.close()
    assert tool("download", path).returncode == 0
    entries = log(tool, path)["entries"]
    assert len(entries) == 1000 and entries[0]["definingRequest"] == "Agencies"
    assert entries[-1]["definingRequest"] == "Old1"  # Old0, the oldest, was dropped


def test_a_bad_limit_is_a_usage_error(tool, make_store, v4):
    path = make_store(v4, "v4", ("Agencies", US))
    refused = tool("log", path, "--limit", "-2")
    assert refused.returncode == 64 and "--limit" in refused.stderr
