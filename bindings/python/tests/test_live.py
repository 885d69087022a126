"""Live queries from Python (issue 36): a callback, an iterator, ``async for``; unrelated writes run nothing."""
import asyncio
import queue
import threading

import pytest

from offline_odata import LiveAnswer, Mode, NotFoundError, Store, UnsupportedError, Watch
from conftest import metadata


@pytest.fixture
def store(store_path):
    with Store.open(store_path, metadata=metadata("v4"), mode=Mode.OFFLINE,
                    defining_requests={"Agencies": "TravelagencyCollection?$filter=country eq 'US'"}) as opened:
        yield opened


def agency(key, city="Boston"):
    return {"agencynum": key, "name": "Agency " + key, "city": city, "country": "US"}


def test_the_iterator_gives_the_current_answer_then_each_changed_one(store):
    with store.watch("TravelagencyCollection/$count") as watch:
        assert isinstance(watch, Watch)
        assert watch.get(timeout=30).text == "0"
        store.create("TravelagencyCollection", agency("00000001"))
        assert watch.get(timeout=30).text == "1"
        store.create("CarrierCollection", {"carrid": "XX", "carrname": "Carrier"})
        store.create("TravelagencyCollection", agency("00000002"))
        assert watch.get(timeout=30).text == "2"
        runs, deliveries = watch.counts
        assert deliveries == 3 and runs >= deliveries
    assert not watch.is_active
    assert list(watch) == []  # closed: the iteration ends


def test_a_callback_gets_answers_and_errors_on_the_live_thread(store):
    answers = queue.Queue()
    threads = set()

    def record(answer):
        threads.add(threading.current_thread().ident)
        answers.put(answer)

    watch = store.watch("TravelagencyCollection('00000009')", callback=record, interval=0)
    first = answers.get(timeout=30)
    assert isinstance(first, LiveAnswer) and isinstance(first.error, NotFoundError)
    with pytest.raises(NotFoundError):
        first.json()
    store.create("TravelagencyCollection", agency("00000009", city="Oslo"))
    assert answers.get(timeout=30).json()["city"] == "Oslo"
    assert threading.get_ident() not in threads
    watch.close()
    watch.close()


def test_what_the_callback_raises_comes_back_from_close(store):
    raised = threading.Event()

    def fail(answer):
        raised.set()
        raise ValueError("from the callback")

    watch = store.watch("TravelagencyCollection", callback=fail)
    assert raised.wait(30)
    with pytest.raises(ValueError):
        watch.close()


def test_async_for(store):
    async def main():
        seen = []
        with store.watch("TravelagencyCollection/$count") as watch:
            async for answer in watch:
                seen.append(answer.text)
                if len(seen) == 1:
                    await asyncio.get_running_loop().run_in_executor(
                        None, lambda: store.create("TravelagencyCollection", agency("00000003")))
                else:
                    watch.close()
        return seen

    assert asyncio.run(main()) == ["0", "1"]


def test_metadata_cannot_be_watched(store):
    with pytest.raises(UnsupportedError):
        store.watch("$metadata")
