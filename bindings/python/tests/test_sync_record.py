"""What a store records of its syncs (issue 25): ``Store.sync_statistics()`` and ``Store.sync_log()``
as typed values, against the real services (odatapy V4, mock-sap V2)."""
import sqlite3
from datetime import datetime, timezone

import pytest

from offline_odata import SYNC_LOG_CAPACITY, Mode, Store, SyncLogEntry, SyncStatistics
from conftest import US_AGENCIES

#: The US agencies with the total the service announces: V4 `@odata.count`, V2 `__count`.
COUNTED = {"v4": US_AGENCIES + "&$count=true", "v2": US_AGENCIES + "&$inlinecount=allpages"}


def parse(timestamp):
    return datetime.strptime(timestamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)


def served_agencies(backend):
    with Store(service_root=backend.service_root, mode=Mode.ONLINE) as online:
        return online.count(US_AGENCIES)


def test_a_download_shows_in_the_statistics_and_the_log(backend, tmp_path):
    started = datetime.now(timezone.utc).replace(microsecond=0)
    with Store.open(tmp_path / "sync.store", service_root=backend.service_root,
                    defining_requests={"Agencies": COUNTED[backend.kind]}) as store:
        store.download(full=True)  # the open downloaded already: a delta would bring no entity
        served = served_agencies(backend)
        statistics = store.sync_statistics()
        assert isinstance(statistics, SyncStatistics)
        [download] = statistics.downloads
        assert download.defining_request == "Agencies" and download.outcome == "succeeded"
        assert download.entities == served == download.expected_entities == store.count(US_AGENCIES)
        assert download.pages >= 1 and download.bytes > served * 20 and download.message is None
        assert started <= parse(download.finished_at) <= datetime.now(timezone.utc)
        assert download.last_success_at == download.finished_at
        assert 0 <= download.duration_ms < 60_000
        assert statistics.queued_requests == 0 and statistics.oldest_queued_at is None
        assert statistics.last_upload is None
        # The open's first download and this one.
        log = store.sync_log()
        assert [entry.kind for entry in log] == ["download", "download"]
        assert all(isinstance(entry, SyncLogEntry) for entry in log)
        assert log[0].id > log[1].id and log[0].entities == served and log[0].remaining == 0
        assert store.sync_log(limit=1) == log[:1] and store.sync_log(limit=0) == []


def test_an_upload_with_a_refusal_shows_in_the_log_and_the_archive_count(v4, tmp_path):
    with Store(service_root=v4.service_root, mode=Mode.ONLINE) as online:
        taken = online.get("TravelagencyCollection?$filter=country ne 'US'&$top=1")[0]["agencynum"]
    with Store.open(tmp_path / "upload.store", service_root=v4.service_root,
                    defining_requests={"Agencies": US_AGENCIES}) as store:
        store.create("TravelagencyCollection", {"agencynum": "99000520", "name": "Seen", "country": "US"})
        store.create("TravelagencyCollection", {"agencynum": taken, "name": "Clash", "country": "US"})
        waiting = store.sync_statistics()
        assert waiting.queued_requests == 2
        assert waiting.oldest_queued_age_seconds is not None and 0 <= waiting.oldest_queued_age_seconds < 60
        assert store.upload() == (1, 1)
        statistics = store.sync_statistics()
        assert statistics.archived_requests == 1 and statistics.archived_in_doubt == 0 and statistics.queued_requests == 0
        upload = statistics.last_upload
        assert upload is not None and (upload.sent, upload.archived, upload.outcome) == (1, 1, "succeeded")
        assert upload.bytes > 0 and upload.last_success_at == upload.finished_at
        [archived] = store.error_archive()
        upload_entry, refusal = store.sync_log(limit=2)
        assert (upload_entry.kind, upload_entry.entities, upload_entry.remaining) == ("upload", 1, 0)
        assert (refusal.kind, refusal.request_id, refusal.outcome) == ("refusal", archived["id"], "conflict")
        assert "POST TravelagencyCollection" in refusal.message


def test_the_log_stays_bounded_dropping_the_oldest_first(v4, tmp_path):
    path = tmp_path / "bounded.store"
    with Store.open(path, service_root=v4.service_root, defining_requests={"Agencies": US_AGENCIES}):
        pass
    # Fill the log to its cap behind the engine's back, then let a real download add one more.
    with sqlite3.connect(path) as connection:
        connection.executemany(
            "INSERT INTO ood_sync_log (at, kind, outcome, defining_request) VALUES ('2026-01-01T00:00:00.000Z', 'download', 'succeeded', ?)",
            [(f"Old{number}",) for number in range(SYNC_LOG_CAPACITY)])
    connection.close()
    with Store.open(path, service_root=v4.service_root, defining_requests={"Agencies": US_AGENCIES}) as store:
        store.download()
        log = store.sync_log()
        assert len(log) == SYNC_LOG_CAPACITY
        assert log[0].defining_request == "Agencies" and log[0].at > "2026-01-01T00:00:00.000Z"
        # Dropped: the first open's download and the oldest row put in; kept: the rest.
        assert [entry.defining_request for entry in log[1:]] == [f"Old{n}" for n in range(SYNC_LOG_CAPACITY - 1, 0, -1)]


def test_bad_limits_and_an_online_store_are_refused(v4, tmp_path):
    with Store.open(tmp_path / "limits.store", service_root=v4.service_root,
                    defining_requests={"Agencies": US_AGENCIES}) as store:
        with pytest.raises(ValueError):
            store.sync_log(limit=-1)
        with pytest.raises(TypeError):
            store.sync_log(limit="5")
    with Store(service_root=v4.service_root, mode=Mode.ONLINE) as online:
        from offline_odata import MisuseError
        with pytest.raises(MisuseError):
            online.sync_statistics()
        with pytest.raises(MisuseError):
            online.sync_log()
