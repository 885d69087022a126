"""OfflineOData for Python: an offline OData store engine, through its C library (ctypes).

>>> import offline_odata
>>> offline_odata.version()            # doctest: +SKIP
'0.1.0'

The main names: :class:`Store` (``Store(path, ...)`` or ``Store.open(...)``: a store that answers
requests, in the :class:`Mode` its ``mode`` says; ``Store.open_file(path)``: the same store, opened
from its file alone), :class:`StoreOptions`, :class:`Entity` (what reads give, with
typed values), :class:`Result` with its :class:`AnswerShape` and :class:`AnswerKind`, :class:`UploadPreview` (what ``Store.preview_upload`` gives), :class:`RequestFuture` (what ``Store.execute_async`` returns), :class:`UndoResult`, :class:`RedownloadResult`,
:class:`Subscription` with :class:`Event` and :class:`EventKind`, and one exception class per C
status, all derived from :class:`OfflineODataError`.
"""
from . import _capi
from .errors import (
    AbortedError,
    BusyError,
    StoreKeyError,
    CannotOpenError,
    ConstraintError,
    HTTPError,
    MetadataError,
    MisuseError,
    NetworkError,
    NotAStoreError,
    NotFoundError,
    OfflineODataError,
    QuerySyntaxError,
    SemanticError,
    StorageError,
    UnsupportedError,
    OtherUserError,
)
from .entity import Entity
from .events import Event, EventKind, Subscription
from .futures import RequestFuture
from .live import LiveAnswer, Watch
from .options import Mode, Options, StoreOptions
from .results import (AnswerKind, AnswerShape, DownloadResult, RedownloadResult, Result, Route, UndoResult,
                      UploadResult, unwrap)
from .store import Store
from .sync_record import SYNC_LOG_CAPACITY, DownloadStatistics, SyncLogEntry, SyncStatistics, UploadStatistics
from .upload_preview import PreviewHeader, PreviewRequest, UploadPreview, UploadPreviewStep

__all__ = [
    "version", "version_number", "Store", "Mode", "Options",
    "StoreOptions", "Entity",
    "Result", "AnswerShape", "AnswerKind", "Route", "DownloadResult", "UploadResult", "UploadPreview", "UploadPreviewStep", "PreviewRequest", "PreviewHeader", "UndoResult", "RedownloadResult", "RequestFuture", "unwrap", "Event", "EventKind", "Subscription", "Watch", "LiveAnswer",
    "SyncStatistics", "DownloadStatistics", "UploadStatistics", "SyncLogEntry", "SYNC_LOG_CAPACITY",
    "OfflineODataError", "MisuseError", "CannotOpenError", "NotAStoreError", "StorageError",
    "MetadataError", "QuerySyntaxError", "SemanticError", "UnsupportedError", "NetworkError",
    "HTTPError", "NotFoundError", "ConstraintError", "AbortedError", "BusyError", "StoreKeyError",
    "OtherUserError",
]


def version() -> str:
    """The loaded library's version, "MAJOR.MINOR.PATCH"."""
    text: bytes = _capi.ood_version()
    return text.decode("ascii")


def version_number() -> int:
    """The loaded library's version as MAJOR * 1000000 + MINOR * 1000 + PATCH."""
    number: int = _capi.ood_version_number()
    return number
