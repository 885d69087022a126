"""A store file opened for file questions only: :class:`StoreFile`."""
import os
from ctypes import byref, c_void_p

from . import _capi
from ._handle import StoreHandle
from .options import PathLike


class StoreFile(StoreHandle):
    """A store file opened (or created, empty of data) for its file questions: :attr:`path` and
    :attr:`format_version`. It answers no requests: :class:`~offline_odata.Store` does.

    >>> with StoreFile("travel.store") as file:                           # doctest: +SKIP
    ...     file.format_version
    7
    """

    def __init__(self, path: PathLike) -> None:
        """Opens (or creates) the store file at ``path``.

        Raises:
            TypeError: ``path`` is not a str or path-like.
            MisuseError: the path is empty.
            CannotOpenError: the path cannot be opened or created.
            NotAStoreError: the file is not an OfflineOData store.
        """
        self._setup()
        text = os.fspath(path)
        if not isinstance(text, str):
            raise TypeError("path must be a str or os.PathLike[str]")
        handle = c_void_p()
        _capi.ood_store_open(_capi.encode(text, "path"), byref(handle))
        self._adopt(handle)
