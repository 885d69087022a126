"""One store shared by 8 Python threads that read and write at once (issue 9, acceptance 3)."""
import threading

import pytest

from offline_odata import MisuseError, Store
from conftest import US_AGENCIES

THREADS = 8
WRITES = 25


def test_eight_threads_reading_and_writing_one_store(v4, tmp_path):
    with Store.open(tmp_path / "threads.store", service_root=v4.service_root,
                    defining_requests={"Agencies": US_AGENCIES}) as store:
        initial = store.get("TravelagencyCollection/$count")
        start = threading.Barrier(THREADS)
        failures = []

        def work(worker):
            try:
                start.wait()
                for i in range(WRITES):
                    key = f"9{worker:02d}{i:05d}"
                    store.create("TravelagencyCollection",
                                 {"agencynum": key, "name": f"T{worker}-{i}", "city": "Boston", "country": "US"})
                    own = store.get(f"TravelagencyCollection('{key}')")
                    assert own["name"] == f"T{worker}-{i}", own
                    mine = store.get(f"TravelagencyCollection?$filter=startswith(name,'T{worker}-')")
                    assert len(mine) == i + 1, (worker, i, len(mine))
                    count = store.get("TravelagencyCollection/$count")
                    assert initial + i + 1 <= count <= initial + THREADS * WRITES
                    if i % 5 == 4:
                        store.update(f"TravelagencyCollection('{key}')", {"city": "Salem"})
            except BaseException as error:  # noqa: B902 - reported by the main thread
                failures.append((worker, error))

        threads = [threading.Thread(target=work, args=(n,)) for n in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        assert not any(thread.is_alive() for thread in threads)
        assert failures == []
        assert store.get("TravelagencyCollection/$count") == initial + THREADS * WRITES
        assert len(store.get("TravelagencyCollection?$filter=city eq 'Salem'")) >= THREADS * (WRITES // 5)
        queue = store.request_queue()
        assert len(queue) == THREADS * WRITES + THREADS * (WRITES // 5)
        # Each thread's writes stay in the order it issued them.
        for worker in range(THREADS):
            own = [entry["url"] + entry["method"] for entry in queue if f"T{worker}-" in (entry["body"] or "")]
            assert len(own) == WRITES


def test_close_waits_for_calls_in_other_threads(v4, tmp_path):
    store = Store.open(tmp_path / "closing.store", service_root=v4.service_root,
                       defining_requests={"Agencies": US_AGENCIES})
    results, errors = [], []
    running = threading.Event()

    def read():
        running.set()
        try:
            for _ in range(200):
                results.append(store.get(US_AGENCIES))
        except Exception as error:  # the MisuseError "closed" once close() has begun
            errors.append(error)

    thread = threading.Thread(target=read)
    thread.start()
    running.wait(10)
    store.close()
    thread.join(60)
    assert results and all(isinstance(r, list) and r for r in results)
    assert all(type(e).__name__ == "MisuseError" for e in errors)
    store.close()


class _WatchedCondition(threading.Condition):
    """The store's close condition, telling when close() waits on it."""

    def __init__(self) -> None:
        super().__init__(threading.Lock())
        self.waiting = threading.Event()

    def wait(self, timeout=None):
        self.waiting.set()
        return super().wait(timeout)


def test_close_waits_for_a_call_counted_as_begun_until_it_ends(store_path):
    store = Store.open_file(store_path)
    store._state = watched = _WatchedCondition()
    handle = store._begin()  # a call in progress (the counters, not a lock, count it)
    assert handle is not None
    closer = threading.Thread(target=store.close)
    closer.start()
    assert watched.waiting.wait(30)  # close() took the handle away and waits for the call
    assert closer.is_alive() and not store.is_open
    with pytest.raises(MisuseError):
        store._begin()  # a call begun now is refused, and counted as ended again
    assert closer.is_alive()
    store._end()  # the call in progress ends: close() goes on
    closer.join(30)
    assert not closer.is_alive()
    assert store._calls_in_progress() == 0
    with pytest.raises(MisuseError):
        store.get("TravelagencyCollection", raw=True)
