"""What the next upload would send (see :meth:`offline_odata.Store.preview_upload`): typed views of
the JSON ``ood_upload_preview`` answers."""
from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Tuple


class PreviewHeader(NamedTuple):
    """One header as the upload would send it."""

    name: str
    value: str
    """The value sent; ``***`` for a credential; a ``<...>`` placeholder for a value only the upload knows."""
    shown: str
    """``"exact"``, ``"masked"`` (a credential) or ``"placeholder"`` (the CSRF token, an ETag an
    earlier answer or a read brings, a first-sent date)."""


class PreviewRequest(NamedTuple):
    """One HTTP request as the upload would send it."""

    method: str
    url: str
    headers: Tuple[PreviewHeader, ...]
    """The engine's and the configured ones in the order handed to libcurl, then ``User-Agent``,
    ``Authorization`` and ``Cookie``; ``Host``, ``Content-Length`` and ``Accept-Encoding`` are
    libcurl's and not listed."""
    body: Optional[str]
    """JSON, or a ``$batch``'s multipart text; None for no body."""

    def header(self, name: str) -> Optional[str]:
        """The value of the header ``name`` (compared without case), or None."""
        wanted = name.lower()
        return next((header.value for header in self.headers if header.name.lower() == wanted), None)

    @classmethod
    def _from_json(cls, document: Dict[str, Any]) -> "PreviewRequest":
        headers = tuple(PreviewHeader(str(h["name"]), str(h["value"]), str(h["shown"])) for h in document["headers"])
        body = document.get("body")
        return cls(str(document["method"]), str(document["url"]), headers, None if body is None else str(body))


class UploadPreviewStep(NamedTuple):
    """One step of the upload."""

    kind: str
    """``"settle"`` (a request in doubt is found out first), ``"archive"`` (requests in doubt that
    cannot be found out go to the error archive), ``"read"`` (an entity is read for an ETag),
    ``"csrfFetch"``, ``"send"`` (one queued request) or ``"batch"``."""
    request_ids: Tuple[int, ...]
    """The queued requests it is about."""
    request: Optional[PreviewRequest]
    """What it sends; None for ``"archive"``."""
    change_sets: Tuple[Tuple[int, ...], ...]
    """For ``"batch"``: the queue ids of each change set."""
    note: str

    @classmethod
    def _from_json(cls, document: Dict[str, Any]) -> "UploadPreviewStep":
        request = document.get("request")
        return cls(str(document["kind"]), tuple(int(i) for i in document["requestIDs"]),
                   None if request is None else PreviewRequest._from_json(request),
                   tuple(tuple(int(i) for i in change_set) for change_set in document["changeSets"]),
                   str(document.get("note", "")))


class UploadPreview(NamedTuple):
    """What :meth:`offline_odata.Store.upload` would send now, in order; nothing was sent."""

    batch: bool
    steps: Tuple[UploadPreviewStep, ...]

    @property
    def requests(self) -> List[PreviewRequest]:
        """The HTTP requests, in the order they would be sent."""
        return [step.request for step in self.steps if step.request is not None]

    @classmethod
    def _from_json(cls, document: Dict[str, Any]) -> "UploadPreview":
        return cls(bool(document["batch"]), tuple(UploadPreviewStep._from_json(step) for step in document["steps"]))
