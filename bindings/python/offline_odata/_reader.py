"""Reads that cross into the library once: ``ood_get_into`` copies the answer into a buffer the
calling thread owns, so a read costs one ctypes call instead of four (request, view, copy, free;
each call costs about a microsecond before the library does any work).

Each thread has its own buffer (the call runs with the GIL released, so two threads may read at
once). An answer larger than the buffer comes back as a result (a spill), read and freed here;
the buffer then grows for the next one, up to LARGEST: larger answers always spill, and their
cost is the decoding, not the calls.
"""
import threading
from ctypes import byref, c_int, c_size_t, c_void_p, create_string_buffer, string_at
from typing import Any, Dict, Optional, Tuple

from . import _capi
from .results import AnswerShape

#: The buffer a thread starts with, and the most it grows to.
INITIAL = 64 * 1024
LARGEST = 1024 * 1024

_of_view = AnswerShape._of_view


#: ``ood_get_into`` (``_capi.ood_get_into``) declared without argument types, for the read path
#: alone: its arguments go converted already (the handle a ``c_void_p``, the URL bytes, the
#: reader's ``byref`` references and ``c_size_t`` capacity made once), so ctypes converts none of
#: the six on each call (about 0.25 µs of a key read's 8). Nothing checks them: call it only as
#: :func:`Store.get` does, with a :class:`Reader`'s arguments.
get_into_converted = _capi.lib["ood_get_into"]
get_into_converted.restype = c_int


class Reader:
    """One thread's buffer, view and spill slot, with the arguments that pass them to
    ``ood_get_into`` (references and the capacity) made once."""

    __slots__ = ("capacity", "buffer", "memory", "buffer_ref", "capacity_arg", "view", "view_ref", "spill",
                 "spill_ref")

    def __init__(self, capacity: int = INITIAL) -> None:
        self._allocate(capacity)
        self.view = _capi.AnswerView()
        self.view_ref = byref(self.view)
        self.spill = c_void_p()
        self.spill_ref = byref(self.spill)

    def _allocate(self, capacity: int) -> None:
        self.capacity = capacity
        self.capacity_arg = c_size_t(capacity)
        self.buffer = create_string_buffer(capacity)
        self.memory = memoryview(self.buffer).cast("B")
        self.buffer_ref = byref(self.buffer)

    def answer(self) -> Tuple[bytes, str, AnswerShape]:
        """The body, content type and shape of the answer ``ood_get_into`` just gave (after a success)."""
        if self.spill.value is not None:
            return self.unspill()
        view = self.view
        return self.memory[:view.length].tobytes(), _content_type(view.content_type), _of_view(view)

    def unspill(self) -> Tuple[bytes, str, AnswerShape]:
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
    try:
        found: Reader = _local.reader
    except AttributeError:
        found = _local.reader = Reader()
    return found


#: URLs read, as the bytes the library takes: an app reads the same few URLs again and again, and
#: checking and encoding one costs a Python call per read. Emptied when full.
_URLS: Dict[str, bytes] = {}
_MOST_URLS = 1024


def url_bytes(url: str) -> bytes:
    """``url`` checked and encoded for the library (:func:`._capi.encode`), remembered for next time."""
    encoded = _capi.encode(url, "url")
    if url.__class__ is str:  # a subclass may hash and compare as it likes
        if len(_URLS) >= _MOST_URLS:
            _URLS.clear()
        _URLS[url] = encoded
    return encoded


__all__: Any = ["Reader", "reader", "url_bytes"]
