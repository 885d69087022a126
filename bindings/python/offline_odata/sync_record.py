"""What a store recorded of its syncs, as typed values: the last download of each defining
request, the last upload, the queue's depth and age (:class:`SyncStatistics`, from
:meth:`offline_odata.Store.sync_statistics`), and the bounded sync log (:class:`SyncLogEntry`,
from :meth:`offline_odata.Store.sync_log`). They read the JSON the library answers
(``ood_store_status``'s ``"sync"``, ``ood_store_sync_log``)."""
from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional

#: The most entries the store keeps in its sync log (the oldest are dropped first).
SYNC_LOG_CAPACITY = 1000


def _optional_int(value: Any) -> Optional[int]:
    return None if value is None else int(value)


def _optional_str(value: Any) -> Optional[str]:
    return None if value is None else str(value)


class DownloadStatistics(NamedTuple):
    """The last download of one defining request."""

    defining_request: str
    entities: int
    """Entities received, expanded ones included."""
    bytes: int
    """Bytes of the pages' bodies, as received."""
    pages: int
    duration_ms: int
    expected_entities: Optional[int]
    """The total the service announced (``@odata.count``, V2 ``__count``), when it did."""
    outcome: str
    """``"succeeded"``, ``"failed"`` or ``"stopped"``."""
    message: Optional[str]
    """Why it failed or stopped; None after a success."""
    finished_at: str
    """When it ended (UTC, ISO 8601)."""
    last_success_at: Optional[str]
    """When a download of this defining request last succeeded."""

    @classmethod
    def _from_json(cls, document: Dict[str, Any]) -> "DownloadStatistics":
        return cls(str(document["definingRequest"]), int(document["entities"]), int(document["bytes"]),
                   int(document["pages"]), int(document["durationMs"]), _optional_int(document.get("expectedEntities")),
                   str(document["outcome"]), _optional_str(document.get("message")), str(document["finishedAt"]),
                   _optional_str(document.get("lastSuccessAt")))


class UploadStatistics(NamedTuple):
    """The last upload."""

    sent: int
    """Requests the service applied."""
    archived: int
    """Requests moved to the error archive."""
    bytes: int
    """Bytes of the bodies of the requests applied."""
    duration_ms: int
    outcome: str
    """``"succeeded"``, ``"failed"`` or ``"stopped"``."""
    message: Optional[str]
    finished_at: str
    last_success_at: Optional[str]
    """When an upload last ran to the end of the queue."""

    @classmethod
    def _from_json(cls, document: Dict[str, Any]) -> "UploadStatistics":
        return cls(int(document["sent"]), int(document["archived"]), int(document["bytes"]), int(document["durationMs"]),
                   str(document["outcome"]), _optional_str(document.get("message")), str(document["finishedAt"]),
                   _optional_str(document.get("lastSuccessAt")))


class SyncStatistics(NamedTuple):
    """The store's synchronisation at a glance."""

    downloads: List[DownloadStatistics]
    """One per defining request downloaded at least once, in the defining requests' order."""
    queued_requests: int
    oldest_queued_at: Optional[str]
    """When the oldest queued request was queued; None for an empty queue."""
    oldest_queued_age_seconds: Optional[int]
    queued_in_doubt: int
    """Queued requests sent without an answer recorded."""
    archived_requests: int
    archived_in_doubt: int
    """Archived requests whose outcome the engine cannot find out (they need a decision)."""
    last_upload: Optional[UploadStatistics]

    @classmethod
    def _from_json(cls, document: Dict[str, Any]) -> "SyncStatistics":
        upload = document.get("lastUpload")
        return cls([DownloadStatistics._from_json(entry) for entry in document["downloads"]],
                   int(document["queuedRequests"]), _optional_str(document.get("oldestQueuedAt")),
                   _optional_int(document.get("oldestQueuedAgeSeconds")), int(document["queuedInDoubt"]),
                   int(document["archivedRequests"]), int(document["archivedInDoubt"]),
                   None if upload is None else UploadStatistics._from_json(upload))


class SyncLogEntry(NamedTuple):
    """One entry of the sync log: a download of a defining request, an upload, or a refusal."""

    id: int
    """Increasing: a later entry has a larger id."""
    at: str
    """When (UTC, ISO 8601 with milliseconds)."""
    kind: str
    """``"download"``, ``"upload"`` or ``"refusal"``."""
    defining_request: Optional[str]
    request_id: Optional[int]
    """The refused request's id (as in the error archive)."""
    entities: Optional[int]
    """Entities downloaded, or requests an upload applied."""
    bytes: Optional[int]
    remaining: Optional[int]
    """Entities the service announced beyond those downloaded, or requests left queued after an upload."""
    duration_ms: Optional[int]
    outcome: str
    """``"succeeded"``, ``"failed"``, ``"stopped"``; a refusal's ``"refused"``, ``"conflict"`` or ``"inDoubt"``."""
    message: Optional[str]

    @classmethod
    def _from_json(cls, document: Dict[str, Any]) -> "SyncLogEntry":
        return cls(int(document["id"]), str(document["at"]), str(document["kind"]),
                   _optional_str(document.get("definingRequest")), _optional_int(document.get("requestID")),
                   _optional_int(document.get("entities")), _optional_int(document.get("bytes")),
                   _optional_int(document.get("remaining")), _optional_int(document.get("durationMs")),
                   str(document["outcome"]), _optional_str(document.get("message")))
