"""Live queries: :class:`Watch`, a local read whose answer comes again whenever a committed
transaction changed it (``ood_watch``), and :class:`LiveAnswer`, one such answer.

A watch either calls a function with each answer (on the store's live-query thread) or, without
one, queues the answers for the caller: :meth:`Watch.get`, iteration (``for answer in watch``) and
``async for answer in watch`` (usable from ``asyncio``). The first answer is the current one.
"""
import asyncio
import json
import queue
import threading
import weakref
from ctypes import byref, c_longlong, c_void_p
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Iterator, Optional, Tuple

from . import _callbacks, _capi
from .errors import OfflineODataError, error_for_status

if TYPE_CHECKING:
    from .store import Store


class LiveAnswer:
    """One answer of a watched read: its body, or the error the read failed with (an entity that
    is no longer there gives :class:`NotFoundError`; the watch goes on)."""

    __slots__ = ("body", "error")

    def __init__(self, body: bytes, error: Optional[OfflineODataError]):
        self.body = body
        """The answer's bytes (JSON, or text for ``/$count``); empty for an error."""
        self.error = error
        """None, or the error of a failed read."""

    @property
    def text(self) -> str:
        """The body as text."""
        return self.body.decode("utf-8")

    def json(self) -> Any:
        """The body parsed; raises the read's error for a failed one."""
        if self.error is not None:
            raise self.error
        return json.loads(self.body)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LiveAnswer) and self.body == other.body and str(self.error) == str(other.error)

    def __repr__(self) -> str:
        return f"<LiveAnswer {self.error!r}>" if self.error is not None else f"<LiveAnswer {self.body[:60]!r}>"


_END = object()


def _stop(handle: c_void_p, key: int) -> None:
    # Also the finalizer: it must hold no reference to the Watch itself.
    _capi.ood_watch_stop(handle)
    _callbacks.unregister(key)


class Watch:
    """A watched read; see :meth:`offline_odata.Store.watch`.

    Use it as a context manager or call :meth:`close`; closing twice is harmless, and a watch left
    open stops when it is collected or when its store closes.
    """

    def __init__(self, store: "Store", url: str, callback: Optional[Callable[[LiveAnswer], Any]] = None,
                 interval: Optional[float] = None):
        """Watches ``url`` on ``store`` (prefer :meth:`Store.watch`)."""
        if callback is not None and not callable(callback):
            raise TypeError("callback must be callable")
        self._store = store  # the parent stays alive while the watch is
        self._callback = callback
        self._queue: "queue.Queue[Any]" = queue.Queue()
        self._lock = threading.Lock()
        self.stored_exception: Optional[BaseException] = None
        self._key = _callbacks.register(self)
        handle = c_void_p()
        try:
            _capi.ood_watch(store._require_handle(), _capi.encode(url, "url"), -1.0 if interval is None else float(interval),
                            _callbacks.WATCH, _callbacks.payload(self._key), byref(handle))
        except BaseException:
            _callbacks.unregister(self._key)
            raise
        self._handle: Optional[c_void_p] = handle
        self._finalizer = weakref.finalize(self, _stop, handle, self._key)

    def deliver(self, status: int, body: bytes) -> None:
        """Called by the library's live-query thread for each answer (not for users)."""
        if status == 0:
            answer = LiveAnswer(body, None)
        else:
            answer = LiveAnswer(b"", error_for_status(status, body.decode("utf-8", "replace")))
        if self._callback is None:
            self._queue.put(answer)
            return
        with self._lock:
            if self.stored_exception is not None:
                return
        try:
            self._callback(answer)
        except BaseException as error:  # noqa: B902 - re-raised by close(), in the watcher's thread
            with self._lock:
                self.stored_exception = error

    @property
    def is_active(self) -> bool:
        """Whether answers still come."""
        return self._handle is not None

    @property
    def counts(self) -> Tuple[int, int]:
        """``(runs, deliveries)``: how often the read ran (its first answer included), and how many
        answers were delivered (a run whose answer did not change delivers none)."""
        handle = self._handle
        if handle is None:
            return (0, 0)
        runs, deliveries = c_longlong(), c_longlong()
        _capi.ood_watch_counts(handle, byref(runs), byref(deliveries))
        return (runs.value, deliveries.value)

    def get(self, timeout: Optional[float] = None) -> LiveAnswer:
        """The next queued answer, waiting up to ``timeout`` seconds (for ever with None).

        Raises:
            queue.Empty: no answer came in time.
            StopIteration: the watch was closed.
            TypeError: the watch calls a function instead of queueing.
        """
        if self._callback is not None:
            raise TypeError("this watch calls its callback; it queues nothing")
        answer = self._queue.get(timeout=timeout)
        if answer is _END:
            self._queue.put(_END)
            raise StopIteration
        assert isinstance(answer, LiveAnswer)
        return answer

    def __iter__(self) -> Iterator[LiveAnswer]:
        """The answers as they come, waiting for each; ends when the watch is closed."""
        while True:
            try:
                yield self.get()
            except StopIteration:
                return

    async def __aiter__(self) -> AsyncIterator[LiveAnswer]:
        """The answers in an ``async for`` loop: each wait runs in the event loop's executor."""
        loop = asyncio.get_running_loop()
        while True:
            answer = await loop.run_in_executor(None, self._next_or_end)
            if answer is None:
                return
            yield answer

    def _next_or_end(self) -> Optional[LiveAnswer]:
        try:
            return self.get()
        except StopIteration:
            return None

    def close(self) -> None:
        """Stops the watch (no callback runs after it returns, except the one that calls it) and
        ends its iteration; re-raises what its callback raised, once."""
        handle, self._handle = self._handle, None
        if handle is not None:
            self._finalizer()
            self._queue.put(_END)
        with self._lock:
            error, self.stored_exception = self.stored_exception, None
        if error is not None:
            raise error

    def __enter__(self) -> "Watch":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<offline_odata.Watch {'active' if self.is_active else 'closed'}>"
