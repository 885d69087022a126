"""Store events: :class:`EventKind`, :class:`Event` and :class:`Subscription`.

A subscription either calls a function for each event (on the store's event thread) or, without
one, queues the events for the caller to take with :meth:`Subscription.get` or by iterating.
An exception raised by the function ends its deliveries and is re-raised by
:meth:`Subscription.close` (and so when a ``with`` block ends), in the subscriber's thread.
"""
import enum
import json
import queue
import threading
import time
import weakref
from ctypes import byref, c_void_p
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterator, NamedTuple, Optional, Union

from . import _callbacks, _capi

if TYPE_CHECKING:
    from .store import Store


class EventKind(enum.IntEnum):
    """What an event reports (``ood_event_kind``); kinds this version does not know stay ints."""

    STATE_CHANGED = 1
    """``{"state": "opening|downloading|open|uploading|closed"}``"""
    OPEN_FAILED = 2
    """``{"error": {"status": N, "message": "..."}}``"""
    DOWNLOAD_PROGRESS = 3
    """``{"definingRequest", "pages", "entities", "expectedEntities", "bytes"}``"""
    DOWNLOAD_FINISHED = 4
    """``{}`` or ``{"error": {...}}``"""
    FIRST_DOWNLOAD_COMPLETE = 5
    """``{}``: the first download of a new store is in."""
    UPLOAD_PROGRESS = 6
    """``{"sent", "archived", "total", "bytesSent", "bytesReceived"}``: the bytes of request and
    answer bodies on the wire so far."""
    UPLOAD_FINISHED = 7
    """``{}`` or ``{"error": {...}}``"""
    ENTITY_SETS_CHANGED = 8
    """``{"entitySets": [...]}``, coalesced by the library."""
    REQUEST_FAILED = 9
    """``{"request": {"id", "method", "url", "httpStatus", "message", "failedAt"}}``"""
    UNCLEAN_SHUTDOWN_CHECKED = 10
    """``{"findings": [{"check", "message"}]}``: the store file was not closed cleanly (its last user
    died with it open), and opening ran SQLite's quick check; a damaged store fails to open instead."""
    SERVICE_MODEL_CHANGED = 11
    """``{"check": {...}}``: a download or a check found the service's ``$metadata`` changed (the
    dict of :meth:`Store.check_service`; ``"migrated"`` when the download applied it in place)."""


class Event(NamedTuple):
    """One event of a store."""

    kind: Union[EventKind, int]
    """An :class:`EventKind`, or the bare int of a kind newer than this binding."""
    details: Dict[str, Any]
    """The event's details, parsed from the library's JSON."""


def _make_event(kind: int, details: bytes) -> Event:
    try:
        known: Union[EventKind, int] = EventKind(kind)
    except ValueError:
        known = kind
    try:
        parsed = json.loads(details)
    except ValueError:
        parsed = {"raw": details.decode("utf-8", "replace")}
    return Event(known, parsed if isinstance(parsed, dict) else {"value": parsed})


def _free(handle: c_void_p, key: int) -> None:
    # Also the finalizer: it must hold no reference to the Subscription itself.
    _capi.ood_subscription_free(handle)
    _callbacks.unregister(key)


class Subscription:
    """A subscription to a store's events; see :meth:`offline_odata.Store.subscribe`.

    Use it as a context manager or call :meth:`close`; closing twice is harmless, and a
    subscription left open ends when it is collected or at interpreter exit.
    """

    def __init__(self, store: "Store", callback: Optional[Callable[[Event], Any]] = None):
        """Subscribes to ``store``'s events from now on (prefer :meth:`Store.subscribe`)."""
        if callback is not None and not callable(callback):
            raise TypeError("callback must be callable")
        self._store = store  # the parent stays alive while the subscription is
        self._callback = callback
        self._queue: "queue.Queue[Event]" = queue.Queue()
        self._lock = threading.Lock()
        self.stored_exception: Optional[BaseException] = None
        self._key = _callbacks.register(self)
        handle = c_void_p()
        try:
            _capi.ood_subscribe(store._require_handle(), _callbacks.EVENT, _callbacks.payload(self._key),
                                byref(handle))
        except BaseException:
            _callbacks.unregister(self._key)
            raise
        self._handle: Optional[c_void_p] = handle
        self._finalizer = weakref.finalize(self, _free, handle, self._key)

    def deliver(self, kind: int, details: bytes) -> None:
        """Called by the library's event thread for each event (not for users)."""
        event = _make_event(kind, details)
        if self._callback is None:
            self._queue.put(event)
            return
        with self._lock:
            if self.stored_exception is not None:
                return
        try:
            self._callback(event)
        except BaseException as error:  # noqa: B902 - re-raised in the subscriber's thread
            with self._lock:
                self.stored_exception = error

    @property
    def is_active(self) -> bool:
        """Whether events are still delivered."""
        return self._handle is not None

    def get(self, timeout: Optional[float] = None) -> Event:
        """The next queued event, waiting up to ``timeout`` seconds (for ever with None).

        Raises:
            queue.Empty: no event came in time.
            TypeError: the subscription calls a function instead of queueing.
        """
        if self._callback is not None:
            raise TypeError("this subscription calls its callback; it queues nothing")
        return self._queue.get(timeout=timeout)

    def wait_for(self, kind: Union[EventKind, int], timeout: float = 30.0) -> Event:
        """Takes queued events until one of ``kind`` arrives; raises ``queue.Empty`` after ``timeout``."""
        deadline = time.monotonic() + timeout
        while True:
            event = self.get(timeout=max(0.0, deadline - time.monotonic()))
            if event.kind == kind:
                return event

    def __iter__(self) -> Iterator[Event]:
        """The queued events available now, without waiting."""
        while True:
            try:
                yield self._queue.get_nowait()
            except queue.Empty:
                return

    def close(self) -> None:
        """Ends the subscription; re-raises what its callback raised, once."""
        handle, self._handle = self._handle, None
        if handle is not None:
            self._finalizer()
        with self._lock:
            error, self.stored_exception = self.stored_exception, None
        if error is not None:
            raise error

    def __enter__(self) -> "Subscription":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<offline_odata.Subscription {'active' if self.is_active else 'closed'}>"
