"""Answers to requests: :class:`Result` (status, content type, body, and what it holds:
:class:`AnswerShape`) and the OData JSON unwrapping.

A result is copied out of the library's ``ood_result`` and that handle released at once, so a
Python ``Result`` owns nothing native and needs no closing.
"""
import json
from ctypes import string_at
from enum import IntEnum
from typing import Any, Dict, List, NamedTuple, Optional, Tuple, Union

from . import _capi

#: What :meth:`Result.value` gives: entities as a list of dicts, one entity as a dict, a count as an
#: int, or None for an answer without a body.
Value = Union[List[Dict[str, Any]], Dict[str, Any], int, str, None]


class AnswerKind(IntEnum):
    """What an answer holds (``ood_answer_kind``), as the store understood the request."""

    OTHER = 0
    """The service document, ``$batch``, an operation returning no entities, a next link's page."""
    COLLECTION = 1
    """Entities of :attr:`AnswerShape.entity_set`."""
    ENTITY = 2
    """One entity (by key, a to-one navigation, a singleton, a create's answer)."""
    PROPERTY = 3
    """A property of one entity, in its JSON wrapper."""
    COUNT = 4
    """``/$count`` of a collection, as text."""
    VALUE = 5
    """A property's raw ``/$value``, as text."""
    METADATA = 6
    """``$metadata`` (XML)."""


class AnswerShape(NamedTuple):
    """What an answer holds, decided where it was made (the library read the request once): so an
    answer is typed without reading its URL again."""

    kind: AnswerKind
    entity_set: Optional[str] = None
    """The entity set of its entities (a navigation's target); None when it names none."""
    entity_type: Optional[str] = None
    """The qualified type of its entities; None when unknown."""
    property: Optional[str] = None
    """For a property or ``$value``: its path (``Address/City``)."""
    property_type: Optional[str] = None
    """For a property or ``$value``: its EDM type (``Edm.String``)."""

    @classmethod
    def _of_view(cls, view: Any) -> "AnswerShape":
        """The shape in an ``ood_answer_view`` that ``ood_result_view`` filled (one C call per
        answer instead of one per field: each ctypes call costs about a microsecond)."""
        kind = _KINDS.get(view.kind, AnswerKind.OTHER)
        if kind is AnswerKind.OTHER or kind is AnswerKind.METADATA:
            return cls(kind)
        if kind is not AnswerKind.PROPERTY and kind is not AnswerKind.VALUE:
            return _new_shape(cls, (kind, _name(view.entity_set), _name(view.entity_type), None, None))
        return _new_shape(cls, (kind, _name(view.entity_set), _name(view.entity_type), _name(view.property),
                                _name(view.property_type)))


#: The kinds by their C value (a table look-up is several times cheaper than ``AnswerKind(n)``).
_KINDS: Dict[int, AnswerKind] = {kind.value: kind for kind in AnswerKind}
#: A shape from all five fields, without the keyword handling of the NamedTuple's constructor.
_new_shape = tuple.__new__
#: Decoded entity set, type and property names: a model has few, and they repeat on every read.
_NAMES: Dict[bytes, str] = {}


def _name(raw: Optional[bytes]) -> Optional[str]:
    if raw is None:
        return None
    name = _NAMES.get(raw)
    if name is None:
        name = raw.decode("utf-8", "replace")
        if len(_NAMES) < 4096:
            _NAMES[raw] = name
    return name


#: The shape of an answer nothing is known about.
NO_SHAPE = AnswerShape(AnswerKind.OTHER)


class Result:
    """The answer to one request, as the store (offline) or the service (online) gave it.

    Attributes:
        status: the HTTP status (200, 201, 204).
        content_type: the answer's content type (``application/json``, ``text/plain``).
        body: the body's bytes, as sent (OData JSON, or text for ``$count``).
        next_link: the service's link to the next page of a page from :meth:`Store.pages`; None on
            the last page and for a whole answer.
        shape: what it holds (:class:`AnswerShape`: a collection of which set, an entity, a
            property, a count, a raw value). A next link's page is :attr:`AnswerKind.OTHER`: the
            first page says what the collection is.
    """

    __slots__ = ("status", "content_type", "body", "next_link", "shape")

    def __init__(self, status: int, content_type: str, body: bytes, next_link: Optional[str] = None,
                 shape: AnswerShape = NO_SHAPE):
        self.status = status
        self.content_type = content_type
        self.body = body
        self.next_link = next_link
        self.shape = shape

    @classmethod
    def _take(cls, handle: Optional[int]) -> "Result":
        """Copies an owned ``ood_result`` and releases it (also when copying fails)."""
        try:
            view = _capi.AnswerView()
            _capi.ood_result_view(handle, view)
            body = string_at(view.body, view.length) if view.body and view.length else b""
            content_type = (view.content_type or b"").decode("utf-8", "replace")
            link = _capi.ood_result_next_link(handle)
            return cls(_capi.ood_result_status(handle), content_type, body,
                       None if link is None else link.decode("utf-8", "replace"), AnswerShape._of_view(view))
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
        """The body without its OData wrapper (see :func:`unwrap`); a raw value (``/$value``) as its text."""
        if self.shape.kind is AnswerKind.VALUE and self.body:
            return self.body.decode("utf-8")
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
