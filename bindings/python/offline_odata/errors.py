"""Exceptions mapped from the C library's ``ood_status`` values, in one table.

``STATUS_EXCEPTIONS`` pairs every status name of ``offline_odata.h`` with its exception class; a
test checks it against the header's enum, so the two cannot drift apart. A status this version
does not know raises the base class, :class:`OfflineODataError`.
"""
from typing import Dict, Optional, Tuple, Type


class OfflineODataError(Exception):
    """Base class of every error the library reports.

    Attributes:
        status: the C status value (``ood_status``).
        status_name: its name in the header, e.g. ``"OOD_CANTOPEN"``.
        message: the library's message.
        offset: for errors in text input (URL, ``$filter``), the character offset; otherwise None.
    """

    def __init__(self, message: str, status: int = 1, status_name: str = "OOD_ERROR",
                 offset: Optional[int] = None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.status_name = status_name
        self.offset = offset


class MisuseError(OfflineODataError):
    """The API was used wrongly: a missing or empty argument, a closed store."""


class CannotOpenError(OfflineODataError):
    """A store file could not be opened or created at the path."""


class NotAStoreError(OfflineODataError):
    """The file is not an OfflineOData store (or is of a newer format)."""


class StorageError(OfflineODataError):
    """SQLite failed while reading or writing the store."""


class MetadataError(OfflineODataError):
    """A $metadata document is malformed or inconsistent."""


class QuerySyntaxError(OfflineODataError):
    """A URL or expression is not well formed; ``offset`` says where."""


class SemanticError(OfflineODataError):
    """A request names what the model does not have, or has the wrong types."""


class UnsupportedError(OfflineODataError):
    """Valid OData that this store does not do (a function import offline)."""


class NetworkError(OfflineODataError):
    """The service could not be reached, or the connection failed."""


class HTTPError(OfflineODataError):
    """The service answered with an HTTP error status."""


class NotFoundError(OfflineODataError):
    """The addressed entity or resource does not exist."""


class ConstraintError(OfflineODataError):
    """A write breaks a constraint of the model."""


class AbortedError(OfflineODataError):
    """A callback asked to stop, or the operation was cancelled."""


class BusyError(OfflineODataError):
    """The store is busy: a callback called back into its own store, or another upload of the
    same store file runs (in this process or another)."""


class StoreKeyError(OfflineODataError):
    """The store's key is wrong or missing: an encrypted store opened without its key or with
    another, or a plain store opened with a key. The file is untouched."""


class OtherUserError(OfflineODataError):
    """The store belongs to another user: opened for a user other than the one it is bound to,
    or for none. Hand it over first (docs/SHARED-DEVICE.md). The file is untouched."""


#: Every status of ``offline_odata.h`` but OOD_OK: (name, value) -> exception class.
STATUS_EXCEPTIONS: Dict[Tuple[str, int], Type[OfflineODataError]] = {
    ("OOD_ERROR", 1): OfflineODataError,
    ("OOD_MISUSE", 2): MisuseError,
    ("OOD_CANTOPEN", 3): CannotOpenError,
    ("OOD_NOTASTORE", 4): NotAStoreError,
    ("OOD_STORAGE", 5): StorageError,
    ("OOD_METADATA", 6): MetadataError,
    ("OOD_SYNTAX", 7): QuerySyntaxError,
    ("OOD_SEMANTIC", 8): SemanticError,
    ("OOD_UNSUPPORTED", 9): UnsupportedError,
    ("OOD_NETWORK", 10): NetworkError,
    ("OOD_HTTP", 11): HTTPError,
    ("OOD_NOTFOUND", 12): NotFoundError,
    ("OOD_CONSTRAINT", 13): ConstraintError,
    ("OOD_ABORTED", 14): AbortedError,
    ("OOD_BUSY", 15): BusyError,
    ("OOD_KEY", 16): StoreKeyError,
    ("OOD_OTHER_USER", 17): OtherUserError,
}

_BY_VALUE = {value: (name, cls) for (name, value), cls in STATUS_EXCEPTIONS.items()}


def error_for_status(status: int, message: str, offset: Optional[int] = None) -> OfflineODataError:
    """The exception for a failed call's status; unknown statuses give the base class."""
    name, cls = _BY_VALUE.get(status, ("OOD_UNKNOWN", OfflineODataError))
    return cls(message, status=status, status_name=name, offset=offset)
