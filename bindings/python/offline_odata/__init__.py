"""OfflineOData for Python: an offline OData store engine, through its C library (ctypes).

>>> import offline_odata
>>> offline_odata.version()            # doctest: +SKIP
'0.1.0'

The main names: :class:`Store` (``Store.open(...)`` for requests, ``Store(path)`` for a store
file), :class:`OfflineStore`, :class:`OnlineStore`, :class:`Mode`, :class:`Result`, :class:`RequestFuture`
(what ``Store.submit`` returns), :class:`UndoResult`, :class:`RedownloadResult`,
:class:`Subscription` with :class:`Event` and :class:`EventKind`, and one exception class per C
status, all derived from :class:`OfflineODataError`.
"""
from . import _capi
from .errors import (
    AbortedError,
    BusyError,
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
)
from .events import Event, EventKind, Subscription
from .options import Mode, Options
from .results import RedownloadResult, Result, Route, UndoResult, UploadResult, unwrap
from .store import OfflineStore, OnlineStore, RequestFuture, Store

__all__ = [
    "version", "version_number", "Store", "OfflineStore", "OnlineStore", "Mode", "Options",
    "Result", "Route", "UploadResult", "UndoResult", "RedownloadResult", "RequestFuture", "unwrap", "Event", "EventKind", "Subscription",
    "OfflineODataError", "MisuseError", "CannotOpenError", "NotAStoreError", "StorageError",
    "MetadataError", "QuerySyntaxError", "SemanticError", "UnsupportedError", "NetworkError",
    "HTTPError", "NotFoundError", "ConstraintError", "AbortedError", "BusyError",
]


def version() -> str:
    """The loaded library's version, "MAJOR.MINOR.PATCH"."""
    return _capi.ood_version().decode("ascii")


def version_number() -> int:
    """The loaded library's version as MAJOR * 1000000 + MINOR * 1000 + PATCH."""
    return _capi.ood_version_number()
