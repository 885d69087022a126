"""What ``Store.download`` returns: one :class:`DownloadResult` per defining request, with the
pages it fetched and, after a download cut part-way (the fault proxy closes the connection half-way
through a page of the real V4 service's answer), the page it resumed at."""
import os

import pytest

from offline_odata import DownloadResult, MetadataError, NetworkError, Store
from conftest import REPOSITORY, _load, metadata

fault_proxy = _load("ood_test_fault_proxy", os.path.join(REPOSITORY, "Tests", "sync", "fault_proxy.py"))
PAGES = 4  # the 40 agencies in the session's V4 server's pages of 10


@pytest.fixture
def faulty(v4):
    started = fault_proxy.FaultProxy(v4)
    yield started
    started.stop()


def test_a_cut_download_resumes_and_says_where(faulty, tmp_path):
    with Store.open(tmp_path / "agencies.store", service_root=faulty.service_root, metadata=metadata("v4"),
                    defining_requests={"Agencies": "TravelagencyCollection"}) as store:
        # The third page of the next download (a rule counts the requests after it is added) is cut.
        faulty.add("cut", method="GET", match="TravelagencyCollection", nth=3)
        with pytest.raises(NetworkError):
            store.download(full=True)
        [resumed] = store.download(full=True)
        assert isinstance(resumed, DownloadResult)
        assert resumed.defining_request == "Agencies" and resumed.pages == PAGES and resumed.entities == 40
        assert resumed.resumed_at_page is not None and 1 < resumed.resumed_at_page <= 3, resumed
        assert 0 < resumed.fetched_pages < resumed.pages, resumed
        assert resumed.fetched_pages == resumed.pages - (resumed.resumed_at_page - 1), resumed
        assert resumed.delta is False and resumed.bytes > 0

        [fresh] = store.download(subset=["Agencies"], full=True)
        assert fresh.resumed_at_page is None, fresh
        assert fresh.pages == fresh.fetched_pages == PAGES, fresh


def test_a_delta_download_returns_its_result_too(v4, tmp_path):
    with Store.open(tmp_path / "delta.store", service_root=v4.service_root,
                    defining_requests={"Agencies": "TravelagencyCollection", "Carriers": "CarrierCollection"}) as store:
        results = store.download()
    assert [result.defining_request for result in results] == ["Agencies", "Carriers"]
    assert all(result.delta and result.resumed_at_page is None and result.fetched_pages == result.pages
               for result in results), results


def test_a_metadata_the_service_does_not_serve_stops_the_download_and_check_model_false_skips_it(faulty, tmp_path):
    with Store.open(tmp_path / "unserved.store", service_root=faulty.service_root, metadata=metadata("v4"),
                    defining_requests={"Agencies": "TravelagencyCollection"}) as store:
        faulty.add("respond", method="GET", match=r"/\$metadata$", status=404, times=100)
        with pytest.raises(MetadataError, match=r"does not serve its \$metadata.*check_model=False"):
            store.download()
        with pytest.raises(TypeError, match="check_model"):
            store.download(check_model="no")
        asked = len(faulty._call("GET", "/_proxy/log")["requests"])
        [result] = store.download(full=True, check_model=False)
        assert result.defining_request == "Agencies" and result.entities > 0
        # Nothing was asked of $metadata this time: every request it made was for pages.
        assert [entry for entry in faulty._call("GET", "/_proxy/log")["requests"][asked:] if "$metadata" in entry["target"]] == []
