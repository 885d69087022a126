"""One entity of an answer: :class:`Entity`, a dict of its properties with its annotations apart."""
from typing import Any, Dict, Optional

#: The offline state annotations of SAP's offline vocabulary (written only when true).
IS_LOCAL = "@com.sap.vocabularies.Offline.v1.isLocal"
HAS_PENDING_CHANGES = "@com.sap.vocabularies.Offline.v1.hasPendingChanges"
IN_ERROR_STATE = "@com.sap.vocabularies.Offline.v1.inErrorState"


class Entity(Dict[str, Any]):
    """An entity's properties as a dict (typed values, expanded navigation properties as
    entities or lists of them), with what annotates it kept apart in :attr:`annotations`.

    The annotation keys of the JSON (``@odata.etag``, V2's ``__metadata``, the offline state
    flags, V2's ``__deferred`` links) are not among the keys, so the dicts of V2 and V4 answers
    compare equal; ``entity["@odata.etag"]`` still reads one, and :attr:`etag`, :attr:`is_local`,
    :attr:`has_pending_changes` and :attr:`in_error_state` name the common ones.
    """

    # No __init__ of its own: dict's, in C, makes the thousands of entities of a read; the
    # annotations are set after, only on the entities that have some.
    __slots__ = ("_annotations",)
    _annotations: Dict[str, Any]

    @classmethod
    def with_annotations(cls, properties: Dict[str, Any], annotations: Dict[str, Any]) -> "Entity":
        """An entity of ``properties`` (taken as they are) annotated with ``annotations``."""
        entity = cls(properties)
        entity._annotations = annotations
        return entity

    @property
    def annotations(self) -> Dict[str, Any]:
        """The entity's annotations as sent: ``{"@odata.etag": ..., "__metadata": {...}, ...}``."""
        try:
            return self._annotations
        except AttributeError:
            return {}

    def __missing__(self, key: str) -> Any:
        # Reading an annotation by its key keeps working, without it being one of the dict's keys.
        try:
            return self._annotations[key]
        except (AttributeError, KeyError):
            raise KeyError(key) from None

    @property
    def etag(self) -> Optional[str]:
        """The entity's ETag (V4 ``@odata.etag``, V2 ``__metadata.etag``), or None."""
        tag = self.annotations.get("@odata.etag")
        if tag is None:
            metadata = self.annotations.get("__metadata")
            if isinstance(metadata, dict):
                tag = metadata.get("etag")
        return tag if isinstance(tag, str) else None

    @property
    def is_local(self) -> bool:
        """Created offline and not uploaded yet (``sap.islocal()``)."""
        return self._flag(IS_LOCAL)

    @property
    def has_pending_changes(self) -> bool:
        """Has local changes waiting for an upload (``sap.hasPendingChanges()``)."""
        return self._flag(HAS_PENDING_CHANGES)

    @property
    def in_error_state(self) -> bool:
        """The service refused a change of it: see the error archive (``sap.inerrorstate()``)."""
        return self._flag(IN_ERROR_STATE)

    def _flag(self, key: str) -> bool:
        value = self.annotations.get(key)
        if value is None:
            metadata = self.annotations.get("__metadata")
            value = metadata.get(key) if isinstance(metadata, dict) else None
        return value is True

    def __repr__(self) -> str:
        return f"Entity({dict.__repr__(self)})"

    def __reduce__(self) -> Any:
        return (Entity.with_annotations, (dict(self), self.annotations))
