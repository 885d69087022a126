"""Cancelling requests started with ``submit`` (``ood_request_start`` / ``ood_call_cancel``)."""
import socket
import threading
import time
from concurrent.futures import CancelledError, wait as wait_futures

import pytest

from offline_odata import Mode, NetworkError, RequestFuture, Store
from conftest import US_AGENCIES


@pytest.fixture
def silent_service():
    """A service root whose connections are accepted (in the backlog) and never answered."""
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    yield f"http://127.0.0.1:{silent.getsockname()[1]}/"
    silent.close()


def test_cancelling_a_request_held_while_the_store_opens_cancels_its_future(silent_service, tmp_path):
    store = Store.open(tmp_path / "held.store", service_root=silent_service, wait=False,
                       defining_requests={"Agencies": US_AGENCIES}, connect_timeout=2, request_timeout=3)
    try:
        called = []
        cancelled = store.submit("GET", US_AGENCIES, callback=lambda future: called.append(future.cancelled()))
        kept = store.submit("GET", US_AGENCIES)
        assert isinstance(cancelled, RequestFuture)
        assert not cancelled.done()  # held: the store is still fetching its $metadata
        started = time.monotonic()
        assert cancelled.cancel() is True
        done, _ = wait_futures([cancelled], timeout=2)
        assert cancelled in done and time.monotonic() - started < 2  # long before opening gives up
        assert cancelled.cancelled()
        with pytest.raises(CancelledError):
            cancelled.result(0)
        assert called == [True]
        assert cancelled.cancel() is True  # again: harmless, still cancelled
        # The request that was not cancelled completes with the error opening failed with.
        assert isinstance(kept.exception(timeout=30), NetworkError)
        assert not kept.cancelled() and kept.cancel() is False
    finally:
        store.close()


def test_cancelling_a_request_waiting_for_the_service_ends_its_transfer(proxy):
    with Store(service_root=proxy.root, mode=Mode.ONLINE) as store:
        proxy.delays["CarrierCollection"] = 6
        future = store.submit("GET", "CarrierCollection?$top=1")
        proxy.wait_for(lambda requests: any("CarrierCollection" in seen.path for seen in requests), timeout=10)
        started = time.monotonic()
        assert future.cancel()
        done, _ = wait_futures([future], timeout=4)
        assert future in done and future.cancelled()
        assert time.monotonic() - started < 4  # the proxy would answer after 6 seconds
        proxy.delays.clear()
        assert store.get("CarrierCollection?$top=1")  # the store goes on


def test_cancel_after_completion_changes_nothing_and_releases_the_call(v4, tmp_path):
    with Store.open(tmp_path / "done.store", service_root=v4.service_root,
                    defining_requests={"Agencies": US_AGENCIES}) as store:
        count = store.get("TravelagencyCollection/$count")
        future = store.submit("GET", "TravelagencyCollection/$count")
        assert future.result(30).value() == count
        assert future.cancel() is False and not future.cancelled()
        assert future._call is None  # the ood_call handle was released once the request completed


def test_cancel_from_many_threads_at_once_is_safe(silent_service, tmp_path):
    store = Store.open(tmp_path / "race.store", service_root=silent_service, wait=False,
                       defining_requests={"Agencies": US_AGENCIES}, connect_timeout=2, request_timeout=3)
    try:
        futures = [store.submit("GET", US_AGENCIES) for _ in range(20)]
        start = threading.Barrier(4)

        def cancel_all():
            start.wait()
            for future in futures:
                future.cancel()

        threads = [threading.Thread(target=cancel_all) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        done, pending = wait_futures(futures, timeout=10)
        assert not pending and all(future.cancelled() for future in futures)
        assert all(future._call is None for future in futures)
    finally:
        store.close()
