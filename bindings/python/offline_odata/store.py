"""The store: an OfflineOData store file, opened and closed from Python."""
import os
from ctypes import byref, c_int, c_void_p
from typing import Optional, Union

from . import _capi
from ._status import check
from .errors import MisuseError


class Store:
    """An open OfflineOData store file.

    Opening creates the file if there is none (an SQLite database in WAL mode with a format
    version), and refuses a file that is not a store. Use it as a context manager, or call
    :meth:`close`; closing twice is harmless, and a store left open is closed when collected.

    >>> with Store("travel.store") as store:          # doctest: +SKIP
    ...     print(store.format_version)
    1
    """

    def __init__(self, path: Union[str, "os.PathLike[str]"]):
        """Opens (or creates) the store at ``path``.

        Raises:
            MisuseError: the path is empty.
            CannotOpenError: the path cannot be opened or created.
            NotAStoreError: the file is not an OfflineOData store.
        """
        self._handle: Optional[c_void_p] = None
        text = os.fspath(path)
        if not isinstance(text, str):
            raise TypeError("path must be a str or os.PathLike[str]")
        handle = c_void_p()
        check(_capi.ood_store_open(text.encode("utf-8"), byref(handle)))
        self._handle = handle

    @property
    def is_open(self) -> bool:
        """Whether the store is still open."""
        return self._handle is not None

    @property
    def path(self) -> str:
        """The path the store was opened with."""
        out = c_void_p()
        check(_capi.ood_store_path(self._require_handle(), byref(out)))
        return _capi.take_string(out)

    @property
    def format_version(self) -> int:
        """The store file's format version."""
        out = c_int()
        check(_capi.ood_store_format_version(self._require_handle(), byref(out)))
        return out.value

    def close(self) -> None:
        """Closes the store. Calling it again does nothing."""
        handle, self._handle = self._handle, None
        if handle is not None:
            _capi.ood_store_close(handle)

    def _require_handle(self) -> c_void_p:
        if self._handle is None:
            raise MisuseError("the store is closed", status=2, status_name="OOD_MISUSE")
        return self._handle

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __del__(self) -> None:
        # At interpreter exit the module globals may already be gone: never raise from here.
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        state = "open" if self.is_open else "closed"
        return f"<offline_odata.Store {state}>"
