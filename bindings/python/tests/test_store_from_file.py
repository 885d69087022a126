"""One kind of store handle (issue 22): a store opened from its file alone (`Store.open_file(path)`, the C
`ood_store_open`) answers as its file describes it, against the real V4 service."""
from __future__ import annotations

import os

import pytest

from offline_odata import MisuseError, Mode, Store
from conftest import FLIGHT, US_AGENCIES

AGENCIES = {"Agencies": US_AGENCIES}


def test_a_downloaded_store_reopened_from_its_file_alone_reads_writes_and_uploads(v4, tmp_path):
    path = tmp_path / "from-file.store"
    with Store.open(path, service_root=v4.service_root, defining_requests=AGENCIES) as store:
        downloaded = store.count(US_AGENCIES)
    assert downloaded > 0
    with Store.open_file(path) as store:
        assert isinstance(store, Store)
        assert not store.route("TravelagencyCollection").online
        assert store.count(US_AGENCIES) == downloaded
        store.create("TravelagencyCollection", {"agencynum": "99000403", "name": "From File Py", "city": "Boston",
                                                "country": "US"})
        status = store.status()
        assert status["serviceRoot"] == v4.service_root and status["queuedRequests"] == 1
        assert [request["name"] for request in status["definingRequests"]] == ["Agencies"]
        assert store.upload() == (1, 0)
    with Store(service_root=v4.service_root, mode=Mode.ONLINE) as online:
        assert online.entity("TravelagencyCollection('99000403')")["name"] == "From File Py"


def test_a_store_file_without_a_service_root_says_what_an_upload_needs(tmp_path):
    path = tmp_path / "no-root.store"
    with open(os.path.join(FLIGHT, "metadata-v4.xml"), encoding="utf-8") as document:
        metadata = document.read()
    Store.open(path, metadata=metadata, defining_requests={"Agencies": "TravelagencyCollection"}).close()
    with Store.open_file(path) as store:
        store.create("TravelagencyCollection", {"agencynum": "99000404", "name": "No Root Py", "country": "US"})
        assert store.entity("TravelagencyCollection('99000404')")["name"] == "No Root Py"
        status = store.status()
        assert status["serviceRoot"] is None and status["queuedRequests"] == 1
        with pytest.raises(MisuseError) as refused:
            store.upload()
        assert refused.value.message.startswith("Store.upload: the store file ")
        assert "keeps no service root" in refused.value.message and "open it with options giving one" in refused.value.message
        # The advice names the binding's call, not a C function (issue 39).
        assert "Store.open(path, service_root=...)" in refused.value.message and "ood_" not in refused.value.message
        with pytest.raises(MisuseError, match="keeps no service root"):
            store.download()
        assert len(store.request_queue()) == 1


def test_a_new_store_file_answers_file_questions_and_refuses_requests_clearly(tmp_path):
    with Store.open_file(tmp_path / "new.store") as store:
        assert store.format_version == 14 and store.check() == []
        with pytest.raises(MisuseError) as refused:
            store.get("TravelagencyCollection")
        assert "file-level questions only" in refused.value.message
        assert "$metadata or a service root" in refused.value.message
