"""``Store.preview_upload()``: the requests the next upload would send, typed; nothing is sent, and
the upload that follows sends what it showed."""
import pytest

from offline_odata import MisuseError, Mode, Store, UploadPreview
from conftest import US_AGENCIES, metadata

NEW = [{"agencynum": "99000041", "name": "Preview One", "city": "Boston", "country": "US"},
       {"agencynum": "99000042", "name": "Preview Two", "city": "Salem", "country": "US"}]


@pytest.mark.parametrize("batch_size", [0, 10])
def test_the_preview_sends_nothing_and_the_upload_sends_what_it_showed(proxy, tmp_path, batch_size):
    with Store.open(tmp_path / "preview.store", service_root=proxy.root, batch_size=batch_size,
                    defining_requests={"Agencies": US_AGENCIES}) as store:
        for entity in NEW:
            store.create("TravelagencyCollection", entity)
        queue = store.request_queue()
        before = len(proxy.requests)
        preview = store.preview_upload()
        assert isinstance(preview, UploadPreview) and preview.batch == (batch_size > 0)
        assert len(proxy.requests) == before and store.request_queue() == queue
        kinds = [step.kind for step in preview.steps]
        assert kinds == (["csrfFetch", "batch"] if batch_size else ["csrfFetch", "send", "send"])
        if batch_size:
            assert preview.steps[1].change_sets == ((1,), (2,))
        change = preview.requests[-1]
        assert change.method == "POST" and change.header("OData-Version") == "4.0"
        assert change.header("X-CSRF-Token") == "<CSRF token fetched by the upload>"

        assert store.upload() == (2, 0)
    sent = proxy.requests[before:]
    assert [(r.method, r.url) for r in preview.requests] == [(s.method, proxy.origin + s.path) for s in sent]
    for shown, seen in zip(preview.requests, sent):
        assert (shown.body or "").encode() == seen.body
        for header in shown.headers:
            if header.shown == "exact":
                assert seen.headers.get(header.name) == header.value


def test_a_store_without_a_service_has_no_upload_to_preview(tmp_path):
    with Store.open(tmp_path / "offline.store", metadata=metadata("v4"), mode=Mode.OFFLINE) as store:
        with pytest.raises(MisuseError, match="service root"):
            store.preview_upload()
