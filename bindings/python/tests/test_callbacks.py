"""Python callbacks called from library threads: progress, events, completions; what they raise."""
import threading

import pytest

from offline_odata import AbortedError, BusyError, EventKind, Store
from conftest import US_AGENCIES


class Stop(Exception):
    """Raised by the tests' callbacks."""


@pytest.fixture
def store(backend, tmp_path):
    with Store.open(tmp_path / "callbacks.store", service_root=backend.service_root, page_size=2,
                    defining_requests={"Agencies": US_AGENCIES}) as opened:
        yield opened


def queue_two_creates(store):
    for key in ("99000011", "99000012"):
        store.create("TravelagencyCollection", {"agencynum": key, "name": "Queued", "country": "US"})


def test_download_progress_is_called_on_a_library_thread(store):
    calls = []
    store.download(progress=lambda done, total: calls.append((done, total, threading.current_thread())))
    assert calls
    assert all(total is None or total >= 0 for _, total, _ in calls)
    assert [done for done, _, _ in calls] == sorted(done for done, _, _ in calls)


def test_a_progress_that_returns_true_stops_the_download(store):
    calls = []
    with pytest.raises(AbortedError):
        store.download(progress=lambda done, total: calls.append(done) or True)
    assert len(calls) == 1


def test_an_exception_in_download_progress_stops_it_and_is_reraised_in_the_caller(store):
    def progress(done, total):
        raise Stop("from the progress callback")

    with pytest.raises(Stop, match="from the progress callback"):
        store.download(progress=progress)
    assert store.get("TravelagencyCollection/$count") > 0  # the store is fine afterwards


def test_an_exception_in_upload_progress_leaves_the_rest_queued(store):
    queue_two_creates(store)
    answered = []

    def progress(done, total):
        answered.append((done, total))
        raise Stop("after the first")

    with pytest.raises(Stop):
        store.upload(progress=progress)
    assert answered == [(1, 2)]
    assert [entry["url"] for entry in store.request_queue()] == ["TravelagencyCollection"]
    assert store.upload(progress=lambda done, total: None) == (1, 0)


def test_upload_progress_returning_true_stops_with_aborted(store):
    queue_two_creates(store)
    with pytest.raises(AbortedError):
        store.upload(progress=lambda done, total: True)
    assert len(store.request_queue()) == 1


def test_a_blocking_call_from_inside_a_callback_is_busy_and_reraised(store):
    def progress(done, total):
        store.get("TravelagencyCollection/$count")

    with pytest.raises(BusyError):
        store.download(progress=progress)


def test_closing_from_inside_a_callback_is_refused(store):
    with pytest.raises(BusyError, match="inside one of its callbacks"):
        store.download(progress=lambda done, total: store.close())
    assert store.is_open


def test_a_progress_that_is_not_callable_is_a_type_error(store):
    with pytest.raises(TypeError):
        store.download(progress=42)


def test_events_reach_a_callback_and_queue_without_one(store):
    seen = []
    with store.subscribe(seen.append) as called, store.subscribe() as queued:
        assert called.is_active
        store.create("TravelagencyCollection", {"agencynum": "99000013", "name": "Evented", "country": "US"})
        changed = queued.wait_for(EventKind.ENTITY_SETS_CHANGED, timeout=30)
        assert "TravelagencyCollection" in changed.details["entitySets"]
        store.download()
        queued.wait_for(EventKind.DOWNLOAD_FINISHED, timeout=30)
        with pytest.raises(TypeError):
            called.get(timeout=0)
    assert not called.is_active
    kinds = {event.kind for event in seen}
    assert {EventKind.ENTITY_SETS_CHANGED, EventKind.DOWNLOAD_FINISHED} <= kinds
    assert "Subscription closed" in repr(called)


def test_an_exception_in_an_event_callback_is_reraised_when_the_subscription_closes(store):
    calls = []

    def callback(event):
        calls.append(event)
        raise Stop(f"event {event.kind!r}")

    subscription = store.subscribe(callback)
    with store.subscribe() as witness:
        store.download()
        witness.wait_for(EventKind.DOWNLOAD_FINISHED, timeout=30)
    with pytest.raises(Stop, match="event"):
        subscription.close()
    assert len(calls) == 1  # deliveries ended with the exception
    subscription.close()  # once re-raised, closing again is quiet


def test_a_blocking_call_inside_an_event_callback_is_busy(store):
    def callback(event):
        if event.kind == EventKind.DOWNLOAD_FINISHED:
            store.status()

    with pytest.raises(BusyError):
        with store.subscribe(callback), store.subscribe() as witness:
            store.download()
            witness.wait_for(EventKind.DOWNLOAD_FINISHED, timeout=30)


def test_a_future_callback_runs_on_the_library_thread_where_blocking_calls_are_busy(store):
    seen = threading.Event()
    outcome = {}

    def done(future):
        outcome["thread"] = threading.current_thread()
        outcome["value"] = future.result().value()
        try:
            store.get("TravelagencyCollection/$count")
        except BusyError as error:
            outcome["busy"] = error
        # The asynchronous call works from here.
        outcome["nested"] = store.submit("GET", "TravelagencyCollection/$count")
        seen.set()

    future = store.submit("GET", "TravelagencyCollection/$count", callback=done)
    assert seen.wait(30) and future.done()
    assert outcome["value"] == store.get("TravelagencyCollection/$count")
    assert outcome["thread"] is not threading.current_thread()
    assert isinstance(outcome["busy"], BusyError)
    assert outcome["nested"].result(30).value() == outcome["value"]


def test_events_of_unknown_kinds_stay_ints():
    from offline_odata.events import _make_event
    event = _make_event(99, b'{"new": true}')
    assert event.kind == 99 and not isinstance(event.kind, EventKind) and event.details == {"new": True}
    assert _make_event(1, b"not json").details == {"raw": "not json"}


def test_a_subscription_closed_right_after_an_upload_has_seen_its_events(store):
    """Issue 39: the events of an upload are posted before it returns and delivered on the store's
    event thread after; ending the subscription waits until those queued before it reached it, so
    a short program that ends it right after the upload still sees them."""
    for attempt in range(5):
        seen = []
        subscription = store.subscribe(seen.append)
        store.create("TravelagencyCollection", {"agencynum": f"9900002{attempt}", "name": "Short", "country": "US"})
        store.upload()
        subscription.close()
        kinds = [event.kind for event in seen]
        assert EventKind.UPLOAD_FINISHED in kinds, (attempt, kinds)
        assert EventKind.ENTITY_SETS_CHANGED in kinds, (attempt, kinds)
