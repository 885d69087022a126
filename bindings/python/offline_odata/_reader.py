"""Reads that cross into the library once: ``ood_get_into`` copies the answer into a buffer the
calling thread owns, so a read costs one ctypes call instead of four (request, view, copy, free;
each call costs about a microsecond before the library does any work).

Each thread has its own buffer (the call runs with the GIL released, so two threads may read at
once). An answer larger than the buffer comes back as a result (a spill), read and freed here;
the buffer then grows for the next one, up to LARGEST: larger answers always spill, and their
cost is the decoding, not the calls.
"""
import threading
from ctypes import addressof, c_void_p, create_string_buffer, string_at
from typing import Any, Dict, Optional, Tuple

from . import _capi
from .results import AnswerShape

#: The buffer a thread starts with, and the most it grows to.
INITIAL = 64 * 1024
LARGEST = 1024 * 1024

_get_into = _capi.ood_get_into
_check = _capi.errcheck_status
_of_view = AnswerShape._of_view


class Reader:
    """One thread's buffer, view and spill slot, with their addresses taken once."""

    __slots__ = ("capacity", "buffer", "memory", "address", "view", "view_address", "spill", "spill_address")

    def __init__(self, capacity: int = INITIAL) -> None:
        self._allocate(capacity)
        self.view = _capi.AnswerView()
        self.view_address = addressof(self.view)
        self.spill = c_void_p()
        self.spill_address = addressof(self.spill)

    def _allocate(self, capacity: int) -> None:
        self.capacity = capacity
        self.buffer = create_string_buffer(capacity)
        self.memory = memoryview(self.buffer).cast("B")
        self.address = addressof(self.buffer)

    def text(self, handle: c_void_p, url: bytes) -> str:
        """The answer's body as text."""
        status = _get_into(handle, url, self.address, self.capacity, self.view_address, self.spill_address)
        if status:
            _check(status, None, ())
        if self.spill.value is None:
            return str(self.memory[:self.view.length], "utf-8")
        return self._unspill()[0].decode("utf-8")

    def typed(self, handle: c_void_p, url: bytes) -> Tuple[bytes, str, AnswerShape]:
        """The answer's body, content type and shape, for :meth:`Schema.decode`."""
        status = _get_into(handle, url, self.address, self.capacity, self.view_address, self.spill_address)
        if status:
            _check(status, None, ())
        if self.spill.value is not None:
            return self._unspill()
        view = self.view
        return self.memory[:view.length].tobytes(), _content_type(view.content_type), _of_view(view)

    def _unspill(self) -> Tuple[bytes, str, AnswerShape]:
        """The spilled answer read out of its result, which is freed; the buffer grown for next time."""
        view = self.view
        spill = self.spill.value
        try:
            length = view.length
            body = string_at(view.body, length) if view.body and length else b""
            answer = body, _content_type(view.content_type), _of_view(view)
        finally:
            self.spill.value = None
            _capi.ood_result_free(spill)
        if self.capacity < LARGEST:
            needed = length + 4096  # the content type and the names beside the body
            capacity = self.capacity
            while capacity < needed and capacity < LARGEST:
                capacity *= 2
            self._allocate(min(capacity, LARGEST))
        return answer


#: Content types seen, decoded once (an answer has one of a few).
_CONTENT_TYPES: Dict[bytes, str] = {}


def _content_type(raw: Optional[bytes]) -> str:
    if not raw:
        return ""
    text = _CONTENT_TYPES.get(raw)
    if text is None:
        text = raw.decode("ascii", "replace")
        if len(_CONTENT_TYPES) < 256:
            _CONTENT_TYPES[raw] = text
    return text


_local = threading.local()


def reader() -> Reader:
    """The calling thread's reader (made on its first read)."""
    found: Optional[Reader] = getattr(_local, "reader", None)
    if found is None:
        found = _local.reader = Reader()
    return found


__all__: Any = ["Reader", "reader"]
