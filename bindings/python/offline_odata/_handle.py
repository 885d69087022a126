"""What every store handle shares: its life cycle (close once, after the calls in progress, also
when collected or at exit), the count of calls in progress, and the file questions.

:class:`~offline_odata.Store` is such a handle, opened with options or from its file alone
(:meth:`~offline_odata.Store.open_file`); the library's ``ood_store`` is one kind of handle for both.
"""
import itertools
import json
import threading
import weakref
from ctypes import byref, c_int, c_void_p
from typing import Any, Callable, Dict, List, Optional, TypeVar

from . import _callbacks, _capi
from .errors import BusyError, MisuseError

_Self = TypeVar("_Self", bound="StoreHandle")


def misuse(message: str) -> MisuseError:
    """A :class:`MisuseError` raised by the binding itself."""
    return MisuseError(message, status=2, status_name="OOD_MISUSE")


class StoreHandle:
    """An open ``ood_store``: closed by :meth:`close`, by the ``with`` block, when collected or at exit."""

    def _setup(self) -> None:
        self._handle: Optional[c_void_p] = None
        # Calls in progress are counted by two counters, of calls begun and of calls ended, each
        # stepped by one C call (atomic under the GIL): every read passes here twice, and a lock
        # taken twice cost more than the rest of a key read's Python. Only close() takes the
        # difference; the condition is only waited on and notified while closing.
        self._began = itertools.count().__next__
        self._ended = itertools.count().__next__
        self._state = threading.Condition(threading.Lock())
        self._finalizer: "Optional[weakref.finalize[..., Any]]" = None

    def _adopt(self, handle: c_void_p) -> None:
        self._handle = handle
        # A finalizer, not __del__: it holds no reference to the store and runs at exit too,
        # while ctypes and the library are still there.
        self._finalizer = weakref.finalize(self, _capi.ood_store_close, handle)

    @property
    def is_open(self) -> bool:
        """Whether the store is still open (not closed)."""
        return self._handle is not None

    def close(self) -> None:
        """Closes the store, after the calls other threads have in progress on it return.

        Calling it again does nothing.

        Raises:
            BusyError: called from inside a callback of the binding (it would wait for itself).
        """
        if self._handle is None:
            return
        if _callbacks.in_callback():
            raise BusyError("a store cannot be closed from inside one of its callbacks",
                            status=15, status_name="OOD_BUSY")
        with self._state:
            if self._handle is None:
                return
            self._handle = None
            while self._calls_in_progress():
                self._state.wait()
        if self._finalizer is not None:
            self._finalizer()

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<offline_odata.{type(self).__name__} {'open' if self.is_open else 'closed'}>"

    def _begin(self) -> c_void_p:
        """Counts a call in progress and gives the handle; raises MisuseError once closed.

        Counted before the handle is read: a call that got the handle is counted before close()
        takes it away, so close() waits for it."""
        self._began()
        handle = self._handle
        if handle is None:
            self._end()
            raise misuse("the store is closed")
        return handle

    def _end(self) -> None:
        self._ended()
        # Only close() waits (with the handle taken away): nobody to wake otherwise.
        if self._handle is None:
            self._wake_close()

    def _wake_close(self) -> None:
        """Wakes close() after a call ended. Notified under the lock, after the count: close()
        counts and waits under it, so no wake-up is lost."""
        with self._state:
            self._state.notify_all()

    def _calls_in_progress(self) -> int:
        """Calls begun and not ended (close() only: each look steps both counters by one). Ended
        is read first, so a call is never counted as ended without being counted as begun."""
        ended = self._ended()
        return self._began() - ended

    def _require_handle(self) -> c_void_p:
        handle = self._handle
        if handle is None:
            raise misuse("the store is closed")
        return handle

    def _json_object(self, function: Callable[..., int], *arguments: Any) -> Dict[str, Any]:
        """The JSON object a question of the library answers."""
        answer = self._json_call(function, *arguments)
        if not isinstance(answer, dict):
            raise TypeError(f"the library answered {type(answer).__name__} JSON where an object was expected")
        return answer

    def _json_list(self, function: Callable[..., int], *arguments: Any) -> List[Dict[str, Any]]:
        """The JSON array of objects a question of the library answers."""
        answer = self._json_call(function, *arguments)
        if not isinstance(answer, list):
            raise TypeError(f"the library answered {type(answer).__name__} JSON where an array was expected")
        return answer

    def _json_call(self, function: Callable[..., int], *arguments: Any) -> Any:
        out = c_void_p()
        handle = self._begin()
        try:
            function(handle, *arguments, byref(out))
        finally:
            self._end()
        return json.loads(_capi.take_string(out))

    # ---- the file ----------------------------------------------------------------------

    @property
    def path(self) -> str:
        """The path the store file was opened with.

        Raises:
            MisuseError: the store is closed, or has no file (online only).
        """
        out = c_void_p()
        handle = self._begin()
        try:
            _capi.ood_store_path(handle, byref(out))
        finally:
            self._end()
        return _capi.take_string(out)

    @property
    def format_version(self) -> int:
        """The store file's format version.

        Raises:
            MisuseError: the store is closed, or has no file (online only).
        """
        out = c_int()
        handle = self._begin()
        try:
            _capi.ood_store_format_version(handle, byref(out))
        finally:
            self._end()
        return out.value

