"""One upload at a time per store file (issue 19, point 2): two handles on one file in one process.

The second handle's upload is tried from the first's upload progress callback, so the first upload
surely runs meanwhile; it raises BusyError, sends nothing and changes nothing. The creates are
keyless (odatapy assigns the keys), so a create sent twice would make two agencies on the service.
"""
import pytest

from offline_odata import BusyError, Mode, Store
from conftest import US_AGENCIES

BUSY = "another upload of this store is running (in this process or another); try again when it has finished"
CITY = "Lockvik"
#: A defining request on the agencies: creates of agencies then go to the offline store's queue.
AGENCIES = {"Agencies": US_AGENCIES}


def agencies_on_service(server):
    with Store(service_root=server.service_root, mode=Mode.ONLINE) as online:
        return sorted(a["name"] for a in online.get(f"TravelagencyCollection?$filter=city eq '{CITY}'"))


def test_a_second_handles_upload_is_busy_while_the_first_uploads(v4, tmp_path):
    path = tmp_path / "lock.store"
    with Store.open(path, service_root=v4.service_root, defining_requests=AGENCIES) as first, \
            Store.open(path, service_root=v4.service_root, defining_requests=AGENCIES) as second:
        for index in (1, 2, 3):
            first.create("TravelagencyCollection", {"name": f"Lock {index}", "city": CITY, "country": "NO"})
        assert len(second.request_queue()) == 3
        tried = []

        def progress(done, total):
            if not tried:
                queue_before = second.request_queue()
                try:
                    second.upload()
                except BusyError as error:
                    tried.append(error)
                else:
                    tried.append(None)
                assert second.request_queue() == queue_before  # nothing sent, nothing changed

        assert first.upload(progress=progress) == (3, 0)
        assert len(tried) == 1 and isinstance(tried[0], BusyError), tried
        assert BUSY in str(tried[0])
        assert agencies_on_service(v4) == ["Lock 1", "Lock 2", "Lock 3"]  # each exactly once
        assert first.request_queue() == [] and second.request_queue() == []
        assert second.upload() == (0, 0)  # the lock went with the first upload


def test_busy_is_the_same_for_a_batch_upload(v4, tmp_path):
    path = tmp_path / "lock.store"
    with Store.open(path, service_root=v4.service_root, defining_requests=AGENCIES, batch_size=1) as first, \
            Store.open(path, service_root=v4.service_root, defining_requests=AGENCIES, batch_size=1) as second:
        for index in (1, 2):
            second.create("TravelagencyCollection", {"name": f"Lock {index}", "city": CITY, "country": "NO"})
        assert len(first.request_queue()) == 2
        raised = []

        def progress(done, total):
            if not raised:
                with pytest.raises(BusyError, match="another upload of this store is running") as caught:
                    first.upload()
                raised.append(caught.value)

        assert second.upload(progress=progress) == (2, 0)
        assert len(raised) == 1
        assert agencies_on_service(v4) == ["Lock 1", "Lock 2"]
