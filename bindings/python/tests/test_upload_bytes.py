"""An upload's progress carries the bytes it moved (the ``UPLOAD_PROGRESS`` event's ``bytesSent``
and ``bytesReceived``): never less than the event before, and at the end exactly the bodies a
recording proxy in front of the real V4 service saw go to the service and come back, for
requests sent one at a time and in a ``$batch``."""
import pytest

from offline_odata import EventKind, Store
from conftest import US_AGENCIES

NEW = [{"agencynum": f"9900008{n}", "name": f"Bytes {n}", "city": "Boston", "country": "US"} for n in range(3)]


@pytest.mark.parametrize("batch_size", [0, 2], ids=["one-at-a-time", "batch"])
def test_the_bytes_in_upload_progress_grow_and_end_as_the_proxy_saw_them(proxy, tmp_path, batch_size):
    with Store.open(tmp_path / "bytes.store", service_root=proxy.root, batch_size=batch_size,
                    defining_requests={"Agencies": US_AGENCIES}) as store:
        [downloaded] = store.entities("TravelagencyCollection?$top=1")
        for entity in NEW:
            store.create("TravelagencyCollection", entity)
        store.update(f"TravelagencyCollection('{downloaded['agencynum']}')", {"name": "Renamed By Bytes"})
        with store.subscribe() as events:
            proxy.requests.clear()
            assert store.upload() == (4, 0)
            seen = list(proxy.requests)
            progress = []
            while (event := events.get(timeout=30)).kind != EventKind.UPLOAD_FINISHED:
                if event.kind == EventKind.UPLOAD_PROGRESS:
                    progress.append(event.details)
    assert progress, "no upload progress event"
    sent = [step["bytesSent"] for step in progress]
    received = [step["bytesReceived"] for step in progress]
    assert sent == sorted(sent) and received == sorted(received), progress
    assert sent[0] > 0 and received[0] > 0, progress
    # What went over the wire: the request bodies (creates, the update, or the $batch bodies) and
    # every answer's body (the CSRF fetch, the entity read for an ETag, the requests' answers).
    assert any(request.method in ("PATCH", "POST") and request.body for request in seen)
    assert sent[-1] == sum(len(request.body) for request in seen), [(r.method, r.path, len(r.body)) for r in seen]
    assert received[-1] == sum(len(request.answer) for request in seen), [(r.method, r.path, len(r.answer)) for r in seen]
    assert progress[-1]["sent"] == 4 and progress[-1]["total"] == 4
