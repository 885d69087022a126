"""The C callbacks of the binding: three module-level trampolines and a registry of payloads.

C calls a callback through a function pointer and hands it a ``void *payload``. A ``CFUNCTYPE``
object made per call would have to be kept alive until C can no longer call it, and freeing it
from inside its own call is unsafe. So there is one trampoline per callback type, alive as long as
the module, and the payload is a small integer that names a Python object in :data:`_REGISTRY`.

Exceptions raised by Python code inside a callback are stored on the payload object
(``stored_exception``) and re-raised by the caller once the C call returns, as pygit2 does;
a progress callback that raises also stops its operation.
"""
import itertools
import threading
from ctypes import c_void_p, string_at
from typing import Any, Callable, Dict, Optional

from . import _capi

_REGISTRY: Dict[int, Any] = {}
_LOCK = threading.Lock()
_IDS = itertools.count(1)
_THREAD = threading.local()


def in_callback() -> bool:
    """Whether the current thread is running one of the binding's callbacks."""
    return getattr(_THREAD, "depth", 0) > 0


class _Inside:
    """Marks the current thread as inside a callback for the duration of a ``with`` block."""

    def __enter__(self) -> None:
        _THREAD.depth = getattr(_THREAD, "depth", 0) + 1

    def __exit__(self, *exc_info: Any) -> None:
        _THREAD.depth -= 1


_INSIDE = _Inside()


def register(target: Any) -> int:
    """Stores ``target`` under a new payload number and returns it (never 0, which is NULL)."""
    with _LOCK:
        key = next(_IDS)
        _REGISTRY[key] = target
        return key


def unregister(key: int) -> Any:
    """Removes and returns the object of a payload number (None if it is gone already)."""
    with _LOCK:
        return _REGISTRY.pop(key, None)


def _lookup(payload: Optional[int]) -> Any:
    with _LOCK:
        return _REGISTRY.get(payload or 0)


class ProgressGuard:
    """The payload of a blocking download or upload: the user's progress callable and what it raised."""

    def __init__(self, callback: Callable[[int, Optional[int]], Any]):
        self.callback = callback
        self.stored_exception: Optional[BaseException] = None

    def __call__(self, done: int, total: int) -> int:
        if self.stored_exception is not None:
            return 1
        try:
            stop = self.callback(done, total if total >= 0 else None)
        except BaseException as error:  # noqa: B902 - KeyboardInterrupt too must reach the caller
            # Keep the exception to re-raise after the C call, and tell C to stop.
            self.stored_exception = error
            return 1
        return 1 if stop else 0


def _progress(done: int, total: int, payload: Optional[int]) -> int:
    guard = _lookup(payload)
    if guard is None:
        return 0
    with _INSIDE:
        stop: int = guard(done, total)
        return stop


def _completion(status: int, result: Optional[int], payload: Optional[int]) -> None:
    # Runs once per open or request; the per-thread message is read here, on C's thread.
    target = unregister(payload or 0)
    error: Optional[BaseException] = None
    if status != 0:
        try:
            _capi.errcheck_status(status, None, ())
        except BaseException as raised:  # noqa: B902
            error = raised
    if target is None:
        _capi.ood_result_free(result)
        return
    with _INSIDE:
        target.complete(error, result)


def _event(kind: int, details: Optional[bytes], payload: Optional[int]) -> None:
    subscription = _lookup(payload)
    if subscription is not None:
        with _INSIDE:
            subscription.deliver(kind, details or b"{}")


def _watch(status: int, body: Optional[int], length: int, payload: Optional[int]) -> None:
    watch = _lookup(payload)
    if watch is not None:
        with _INSIDE:
            watch.deliver(status, string_at(body, length) if body else b"")


#: The trampolines, alive as long as this module; C may call them from any library thread.
PROGRESS = _capi.ood_progress(_progress)
COMPLETION = _capi.ood_completion(_completion)
EVENT = _capi.ood_event_callback(_event)
WATCH = _capi.ood_watch_callback(_watch)
NO_PROGRESS = _capi.ood_progress()


def payload(key: int) -> c_void_p:
    """The ``void *`` that carries a payload number."""
    return c_void_p(key)
