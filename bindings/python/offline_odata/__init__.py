"""OfflineOData for Python: an offline OData store engine, through its C library (ctypes).

>>> import offline_odata
>>> offline_odata.version()            # doctest: +SKIP
'0.1.0'
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
from .store import Store

__all__ = [
    "version", "version_number", "Store",
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
