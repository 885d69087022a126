"""Answers to requests: :class:`Result` (status, content type, body) and the OData JSON unwrapping.

A result is copied out of the library's ``ood_result`` and that handle released at once, so a
Python ``Result`` owns nothing native and needs no closing.
"""
import json
from ctypes import byref, c_size_t, string_at
from typing import Any, Dict, List, NamedTuple, Optional, Tuple, Union

from . import _capi

#: What :meth:`Result.value` gives: entities as a list of dicts, one entity as a dict, a count as an
#: int, or None for an answer without a body.
Value = Union[List[Dict[str, Any]], Dict[str, Any], int, None]


class Result:
    """The answer to one request, as the store (offline) or the service (online) gave it.

    Attributes:
        status: the HTTP status (200, 201, 204).
        content_type: the answer's content type (``application/json``, ``text/plain``).
        body: the body's bytes, as sent (OData JSON, or text for ``$count``).
        next_link: the service's link to the next page of a page from :meth:`Store.pages`; None on
            the last page and for a whole answer.
    """

    __slots__ = ("status", "content_type", "body", "next_link")

    def __init__(self, status: int, content_type: str, body: bytes, next_link: Optional[str] = None):
        self.status = status
        self.content_type = content_type
        self.body = body
        self.next_link = next_link

    @classmethod
    def _take(cls, handle: Optional[int]) -> "Result":
        """Copies an owned ``ood_result`` and releases it (also when copying fails)."""
        try:
            length = c_size_t()
            pointer = _capi.ood_result_body(handle, byref(length))
            body = string_at(pointer, length.value) if pointer and length.value else b""
            content_type = (_capi.ood_result_content_type(handle) or b"").decode("utf-8", "replace")
            link = _capi.ood_result_next_link(handle)
            return cls(_capi.ood_result_status(handle), content_type, body,
                       None if link is None else link.decode("utf-8", "replace"))
        finally:
            _capi.ood_result_free(handle)

    @property
    def text(self) -> str:
        """The body as text (UTF-8)."""
        return self.body.decode("utf-8")

    def json(self) -> Any:
        """The body parsed as JSON, exactly as sent (V4 ``value`` / V2 ``d`` wrappers included)."""
        return json.loads(self.body)

    def value(self) -> Value:
        """The body without its OData wrapper; see :func:`unwrap`."""
        return unwrap(self.body, self.content_type)

    def __repr__(self) -> str:
        return f"<offline_odata.Result {self.status} {self.content_type or '-'} {len(self.body)} bytes>"


def unwrap(body: bytes, content_type: str = "application/json") -> Value:
    """Turns an OData answer into plain Python values.

    * a collection (V4 ``{"value": [...]}``, V2 ``{"d": {"results": [...]}}``) gives a list of dicts;
    * one entity (V4 ``{...}``, V2 ``{"d": {...}}``) gives a dict, without ``@odata.context``;
    * ``$count`` (text) gives an int; an empty body gives None.
    """
    if not body:
        return None
    if not content_type.startswith("application/json"):
        return count_of(body)
    value: Value = unwrap_json(json.loads(body))[0]
    return value


def count_of(body: bytes) -> int:
    """The int of a ``$count`` answer (text)."""
    text = body.decode("utf-8").strip()
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"not an OData JSON answer nor a count: {text[:80]!r}") from None


def unwrap_json(document: Any) -> Tuple[Any, Optional[bool]]:
    """A parsed OData answer without its wrapper, and what it is: True for a collection (a list
    of entities), False for one object (an entity, or V2's wrapper of a property), None for other
    JSON. V4's ``@odata.context`` is taken off one entity."""
    if not isinstance(document, dict):
        return document, None
    if "d" in document and len(document) == 1:  # V2
        inner = document["d"]
        if isinstance(inner, dict) and isinstance(inner.get("results"), list):
            return inner["results"], True
        return inner, False if isinstance(inner, dict) else None
    context = document.get("@odata.context", "")
    if isinstance(document.get("value"), list) and not context.endswith("$entity"):
        return document["value"], True
    document.pop("@odata.context", None)
    return document, False


class Route(NamedTuple):
    """Where a request would go (see :meth:`offline_odata.Store.route`)."""

    online: bool
    """True for the service, False for the offline store."""
    reason: str
    """Why, in plain words."""


class UploadResult(NamedTuple):
    """What an upload did (see :meth:`offline_odata.Store.upload`)."""

    sent: int
    """Requests the service accepted."""
    archived: int
    """Requests the service refused; they are in the error archive now."""


class DownloadResult(NamedTuple):
    """What a download did for one defining request (see :meth:`offline_odata.Store.download`)."""

    defining_request: str
    entities: int
    """Entities received, expanded ones included (those of kept pages too, after a resume)."""
    pages: int
    """Every page of the result, those kept from an interrupted download included."""
    bytes: int
    """Bytes of the pages' bodies, as received."""
    expected_entities: Optional[int]
    """The total the service announced (``@odata.count``, V2 ``__count``), when it did."""
    delta: bool
    """Whether it was a delta download (changes since the last one)."""
    fetched_pages: int
    """The pages this download fetched: :attr:`pages` less those an interrupted one had kept."""
    resumed_at_page: Optional[int]
    """The page it resumed at after an interrupted download (kill, network failure); None when it
    started at the first."""

    @classmethod
    def _from_json(cls, document: Dict[str, Any]) -> "DownloadResult":
        expected = document.get("expectedEntities")
        resumed = document.get("resumedAtPage")
        return cls(str(document["definingRequest"]), int(document["entities"]), int(document["pages"]),
                   int(document["bytes"]), None if expected is None else int(expected), bool(document["delta"]),
                   int(document["fetchedPages"]), None if resumed is None else int(resumed))


class UndoResult(NamedTuple):
    """What :meth:`offline_odata.Store.undo` did to one entity."""

    entity_set: str
    """The entity's entity set."""
    action: str
    """``"removed"`` (it was created offline and is gone), ``"restored"`` (it has the values the
    service last sent again), ``"unmarked"`` (its synced values were not kept: the next download
    brings them) or ``"nothing"`` (it had no local changes)."""
    dropped_requests: int
    """How many of its requests left the request queue and the error archive."""

    @classmethod
    def _from_json(cls, document: Dict[str, Any]) -> "UndoResult":
        return cls(str(document.get("entitySet", "")), str(document.get("action", "")),
                   int(document.get("droppedRequests", 0)))


class RedownloadResult(NamedTuple):
    """What :meth:`offline_odata.Store.redownload` did to one entity."""

    entity_set: str
    """The entity's entity set."""
    action: str
    """``"updated"`` (it has the service's values and ETag now) or ``"removed"`` (the service
    answered 404: it left the store)."""

    @classmethod
    def _from_json(cls, document: Dict[str, Any]) -> "RedownloadResult":
        return cls(str(document.get("entitySet", "")), str(document.get("action", "")))
