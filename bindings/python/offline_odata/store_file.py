"""A store opened from its file alone: :class:`StoreFile`."""
import os
from ctypes import byref, c_void_p

from . import _capi
from .options import PathLike
from .store import Store


class StoreFile(Store):
    """The store at a path, opened as its file describes it (``ood_store_open``): its saved
    ``$metadata``, defining requests, indexes and service root, with no options. It is a
    :class:`~offline_odata.Store` like any other: reads, local writes, the queue, :meth:`status`,
    :meth:`check`, and downloads and uploads when the file keeps its service root (else they raise
    :class:`~offline_odata.MisuseError` saying to open it with ``service_root``). Opening sends
    nothing to the service. Where no file is, it makes one that answers only :attr:`path`,
    :attr:`format_version` and :meth:`check` until opened with its ``metadata`` or a ``service_root``.

    >>> with StoreFile("travel.store") as store:                          # doctest: +SKIP
    ...     store.format_version, len(store.entities("TravelagencyCollection"))
    (7, 24)
    """

    def __init__(self, path: PathLike) -> None:
        """Opens (or creates) the store at ``path``.

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
