"""The futures of asynchronous calls: :class:`RequestFuture` (a request from
:meth:`~offline_odata.Store.execute_async`) and the payloads the library's completion settles."""
import threading
from concurrent.futures import Future
from typing import Any, Optional

from . import _capi
from .errors import AbortedError
from .results import Result


class RequestFuture(Future):  # type: ignore[type-arg]
    """The :class:`concurrent.futures.Future` of a request started with :meth:`Store.submit`.

    It stays pending until the request completes, then holds its :class:`Result` or its error.
    :meth:`cancel` asks the library to stop the request. The library's call handle
    (``ood_call``) is released as soon as the request completed and no :meth:`cancel` is using it.
    """

    def __init__(self) -> None:
        super().__init__()
        self._call_lock = threading.Lock()
        self._call: Optional[int] = None
        self._cancel_requested = False
        self._cancelling = 0
        self._settled = False

    def cancel(self) -> bool:
        """Asks the library to stop the request (``ood_call_cancel``).

        Like :meth:`asyncio.Task.cancel`, this is a request: it returns False when the future is
        done already (True if it was cancelled), and True otherwise. A request still held (the
        store is opening, or earlier writes run) or waiting for the service then ends cancelled:
        :meth:`cancelled` is True and :meth:`result` raises
        :class:`concurrent.futures.CancelledError`. A local read or write takes milliseconds and
        may finish normally: the future then holds its result (or error) as if not cancelled.
        Safe from any thread, also from inside a callback, and more than once.
        """
        with self._call_lock:
            if self._settled:
                return self.cancelled()
            self._cancel_requested = True
            handle = self._call
            if handle is None:
                return True  # _attach cancels it once ood_request_start has given the handle
            self._cancelling += 1
        try:
            _capi.ood_call_cancel(handle)
        finally:
            self._done_cancelling()
        return self.cancelled() if self.done() else True

    def _done_cancelling(self) -> None:
        with self._call_lock:
            self._cancelling -= 1
            handle = self._take_call_if_free()
        if handle is not None:
            _capi.ood_call_free(handle)

    def _take_call_if_free(self) -> Optional[int]:
        """Under the lock: the call handle, cleared, once nothing needs it any more; else None."""
        if self._settled and not self._cancelling and self._call is not None:
            handle, self._call = self._call, None
            return handle
        return None

    def _attach(self, handle: Optional[int]) -> None:
        """Keeps the ``ood_call *`` that ``ood_request_start`` gave (the completion may have run)."""
        if not handle:
            return
        with self._call_lock:
            self._call = handle
            cancel_now = self._cancel_requested and not self._settled
            if cancel_now:
                self._cancelling += 1
            free_now = self._take_call_if_free()
        if free_now is not None:
            _capi.ood_call_free(free_now)
        if cancel_now:
            try:
                _capi.ood_call_cancel(handle)
            finally:
                self._done_cancelling()

    def _settle(self, error: Optional[BaseException], result: Optional[int]) -> None:
        """Called once by the completion: the request's answer (an owned ``ood_result *``) or error."""
        with self._call_lock:
            self._settled = True
            cancelled = self._cancel_requested and isinstance(error, AbortedError)
            handle = self._take_call_if_free()
        if handle is not None:
            _capi.ood_call_free(handle)
        if cancelled:
            _capi.ood_result_free(result)
            Future.cancel(self)  # pending -> cancelled; runs the done callbacks
            self.set_running_or_notify_cancel()  # -> cancelled and notified: wake wait()/as_completed()
            return
        self.set_running_or_notify_cancel()
        if error is not None:
            _capi.ood_result_free(result)
            self.set_exception(error)
        else:
            self.set_result(Result._take(result))


class _Pending:
    """The payload of an asynchronous open: the Future its completion settles."""

    __slots__ = ("future",)

    def __init__(self) -> None:
        self.future: "Future[Any]" = Future()
        self.future.set_running_or_notify_cancel()

    def complete(self, error: Optional[BaseException], result: Optional[int]) -> None:
        if error is not None:
            _capi.ood_result_free(result)
            self.future.set_exception(error)
        else:
            _capi.ood_result_free(result)
            self.future.set_result(None)


class _PendingRequest:
    """The payload of a request started with ``ood_request_start``: its :class:`RequestFuture`."""

    __slots__ = ("future",)

    def __init__(self) -> None:
        self.future = RequestFuture()

    def complete(self, error: Optional[BaseException], result: Optional[int]) -> None:
        self.future._settle(error, result)
