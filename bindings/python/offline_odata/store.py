"""The store: :class:`Store` (file-level or fully open), :class:`OfflineStore`, :class:`OnlineStore`.

``Store(path)`` opens a store file for file-level questions only (``ood_store_open``: its path,
its format version). ``Store.open(...)`` opens a store that answers OData requests
(``ood_store_open_with``): offline from its file, online from its service, or both (mixed mode).
:class:`OfflineStore` and :class:`OnlineStore` are the same store with the mode fixed.

Every blocking method releases the GIL while the library works, so threads run side by side; one
store may be shared by any number of threads. :meth:`Store.close` waits for the calls other
threads have in progress on the store, because the library must not see a handle used after it is
closed.
"""
import json
import os
import threading
import weakref
from concurrent.futures import Future
from ctypes import byref, c_int, c_long, c_size_t, c_void_p, string_at
from typing import Any, Callable, Dict, List, Optional, Union

from . import _callbacks, _capi
from .errors import AbortedError, BusyError, MisuseError
from .events import Event, Subscription
from .options import Mode, Options, PathLike
from .results import Result, Route, UploadResult, Value, unwrap

#: A progress callable: ``progress(done, total)``, total None when unknown; a true return stops.
Progress = Callable[[int, Optional[int]], Any]
#: A request body: a dict or list (sent as JSON), JSON text, or None.
Body = Union[Dict[str, Any], List[Any], str, bytes, None]


def _misuse(message: str) -> MisuseError:
    return MisuseError(message, status=2, status_name="OOD_MISUSE")


def _body_bytes(body: Body) -> Optional[bytes]:
    if body is None:
        return None
    if isinstance(body, (dict, list)):
        return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if isinstance(body, bytes):
        return body
    if isinstance(body, str):
        return body.encode("utf-8")
    raise TypeError(f"body must be a dict, a list, str, bytes or None, not {type(body).__name__}")


def _method_bytes(method: str) -> bytes:
    if not isinstance(method, str) or not method:
        raise TypeError("method must be a non-empty str such as 'GET' or 'POST'")
    return method.upper().encode("ascii")


class _Pending:
    """The payload of an asynchronous request or open: the Future its completion settles."""

    __slots__ = ("future", "keep_result")

    def __init__(self, keep_result: bool):
        self.future: "Future[Any]" = Future()
        self.future.set_running_or_notify_cancel()
        self.keep_result = keep_result

    def complete(self, error: Optional[BaseException], result: Optional[int]) -> None:
        if error is not None:
            _capi.ood_result_free(result)
            self.future.set_exception(error)
        elif self.keep_result:
            self.future.set_result(Result._take(result))
        else:
            _capi.ood_result_free(result)
            self.future.set_result(None)


class Store:
    """An OfflineOData store.

    ``Store(path)`` opens (or creates) a store file for file-level questions (:attr:`path`,
    :attr:`format_version`); requests need a store from :meth:`open`. Use either as a context
    manager, or call :meth:`close`; closing twice is harmless, and a store left open is closed
    when collected or at interpreter exit.

    >>> with Store.open("travel.store", service_root=SERVICE,              # doctest: +SKIP
    ...                 defining_requests={"Agencies": "TravelagencyCollection"}) as store:
    ...     agencies = store.get("TravelagencyCollection?$filter=country eq 'US'")
    """

    def __init__(self, path: PathLike):
        """Opens (or creates) the store file at ``path`` for file-level questions.

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

    @classmethod
    def open(cls, path: Optional[PathLike] = None, *, wait: bool = True, **options: Any) -> "Store":
        """Opens a store that answers requests; the keyword arguments are :class:`Options` fields.

        With ``wait=True`` (the default) it returns once the store is open: its file made or
        reopened, its ``$metadata`` read or fetched, and the first download of a new store done.
        With ``wait=False`` it returns at once; requests are held until the store is open, and
        :meth:`wait_until_open` waits for it (and raises if opening failed).

        Raises:
            TypeError: an option of the wrong type, or an unknown option.
            MisuseError: neither a path nor a service root, or an option the library refuses.
            CannotOpenError, NotAStoreError, MetadataError, NetworkError, HTTPError: opening failed.
        """
        store = cls.__new__(cls)
        store._setup()
        store._open_with(Options(path=path, **options), wait)
        return store

    # ---- life cycle ---------------------------------------------------------------------

    def _setup(self) -> None:
        self._handle: Optional[c_void_p] = None
        self._state = threading.Condition(threading.Lock())
        self._calls = 0
        self._opened: "Optional[Future[None]]" = None
        self._finalizer: Optional[weakref.finalize] = None

    def _adopt(self, handle: c_void_p) -> None:
        self._handle = handle
        # A finalizer, not __del__: it holds no reference to the store and runs at exit too,
        # while ctypes and the library are still there.
        self._finalizer = weakref.finalize(self, _capi.ood_store_close, handle)

    def _open_with(self, options: Options, wait: bool) -> None:
        handle = c_void_p()
        with options._handle() as native:
            if wait:
                _capi.ood_store_open_with(native, byref(handle))
            else:
                pending = _Pending(keep_result=False)
                key = _callbacks.register(pending)
                try:
                    _capi.ood_store_open_async(native, _callbacks.COMPLETION, _callbacks.payload(key), byref(handle))
                except BaseException:
                    _callbacks.unregister(key)
                    raise
                self._opened = pending.future
        self._adopt(handle)

    def wait_until_open(self, timeout: Optional[float] = None) -> None:
        """Waits until a store from ``open(wait=False)`` is open; raises the error opening failed with.

        Raises:
            concurrent.futures.TimeoutError: not open after ``timeout`` seconds.
        """
        if self._opened is not None:
            self._opened.result(timeout)

    @property
    def is_open(self) -> bool:
        """Whether the store is still open (not closed)."""
        return self._handle is not None

    def close(self) -> None:
        """Closes the store, after the calls other threads have in progress on it return.

        Calling it again does nothing.

        Raises:
            BusyError: called from inside a callback of the binding (it would wait for itself).
        """
        if self._handle is None:
            return
        if _callbacks.in_callback():
            raise BusyError("a store cannot be closed from inside one of its callbacks",
                            status=15, status_name="OOD_BUSY")
        with self._state:
            if self._handle is None:
                return
            self._handle = None
            while self._calls:
                self._state.wait()
        if self._finalizer is not None:
            self._finalizer()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<offline_odata.{type(self).__name__} {'open' if self.is_open else 'closed'}>"

    def _begin(self) -> c_void_p:
        """Counts a call in progress and gives the handle; raises MisuseError once closed."""
        with self._state:
            if self._handle is None:
                raise _misuse("the store is closed")
            self._calls += 1
            return self._handle

    def _end(self) -> None:
        with self._state:
            self._calls -= 1
            if not self._calls:
                self._state.notify_all()

    def _require_handle(self) -> c_void_p:
        handle = self._handle
        if handle is None:
            raise _misuse("the store is closed")
        return handle

    def _json_call(self, function: Callable[..., int], *arguments: Any) -> Any:
        out = c_void_p()
        handle = self._begin()
        try:
            function(handle, *arguments, byref(out))
        finally:
            self._end()
        return json.loads(_capi.take_string(out))

    # ---- the file ----------------------------------------------------------------------

    @property
    def path(self) -> str:
        """The path the store file was opened with.

        Raises:
            MisuseError: the store is closed, or has no file (online only).
        """
        out = c_void_p()
        handle = self._begin()
        try:
            _capi.ood_store_path(handle, byref(out))
        finally:
            self._end()
        return _capi.take_string(out)

    @property
    def format_version(self) -> int:
        """The store file's format version.

        Raises:
            MisuseError: the store is closed, or has no file (online only).
        """
        out = c_int()
        handle = self._begin()
        try:
            _capi.ood_store_format_version(handle, byref(out))
        finally:
            self._end()
        return out.value

    # ---- requests ----------------------------------------------------------------------

    def execute(self, method: str, url: str, body: Body = None) -> Result:
        """Runs one OData request and waits for its answer, routed as the store's mode says.

        Args:
            method: ``GET``, ``POST``, ``PUT``, ``PATCH``, ``MERGE`` or ``DELETE``.
            url: relative to the service root, in the service's dialect.
            body: the entity of a create or update (a dict is sent as JSON).

        Raises:
            QuerySyntaxError: the URL is not well formed (``offset`` says where).
            SemanticError, UnsupportedError, NotFoundError, ConstraintError: the request was refused.
            NetworkError, HTTPError: the service failed (online requests).
            BusyError: called from a callback of this store.
            MisuseError: the store is closed, or was opened with ``Store(path)``.
        """
        raw_method = _method_bytes(method)
        raw_url = _capi.encode(url, "url")
        raw_body = _body_bytes(body)
        out = c_void_p()
        handle = self._begin()
        try:
            _capi.ood_request(handle, raw_method, raw_url, raw_body, byref(out))
        finally:
            self._end()
        return Result._take(out.value)

    def get(self, url: str, *, raw: bool = False) -> Union[Value, str]:
        """Reads ``url``: entities as a list of dicts, one entity as a dict, a ``$count`` as an int.

        With ``raw=True`` it returns the answer's text as sent (OData JSON) instead.
        Raises what :meth:`execute` raises.
        """
        raw_url = _capi.encode(url, "url")
        out = c_void_p()
        handle = self._begin()
        try:
            _capi.ood_request(handle, b"GET", raw_url, None, byref(out))
        finally:
            self._end()
        # The hot path of reads: one copy of the body into bytes, then json.loads, nothing else.
        try:
            length = c_size_t()
            pointer = _capi.ood_result_body(out, byref(length))
            body = string_at(pointer, length.value) if pointer and length.value else b""
            if raw:
                return body.decode("utf-8")
            content_type = _capi.ood_result_content_type(out) or b""
        finally:
            _capi.ood_result_free(out)
        return unwrap(body, content_type.decode("ascii", "replace"))

    def create(self, entity_set: str, entity: Dict[str, Any]) -> Value:
        """Creates ``entity`` in ``entity_set`` (POST) and returns the entity as stored."""
        if not isinstance(entity, dict):
            raise TypeError("entity must be a dict")
        return self.execute("POST", entity_set, entity).value()

    def update(self, url: str, changes: Dict[str, Any], *, method: str = "PATCH") -> Value:
        """Changes the entity at ``url`` (PATCH by default; PUT replaces, MERGE is V2's PATCH).

        Returns the entity when the answer carries one, else None.
        """
        if not isinstance(changes, dict):
            raise TypeError("changes must be a dict")
        if method.upper() not in ("PATCH", "PUT", "MERGE"):
            raise ValueError("method must be PATCH, PUT or MERGE")
        return self.execute(method, url, changes).value()

    def delete(self, url: str) -> None:
        """Deletes the entity at ``url``."""
        self.execute("DELETE", url)

    def submit(self, method: str, url: str, body: Body = None, *,
               callback: "Optional[Callable[[Future[Result]], Any]]" = None) -> "Future[Result]":
        """Starts one request and returns at once: a Future of its :class:`Result` (or error).

        The request completes exactly once, on a library thread. ``callback(future)`` is called
        there when it does (it is attached before the request starts, so it never runs in the
        caller's thread); there, blocking calls of this store raise BusyError and ``submit`` works.
        As with any ``add_done_callback``, what the callback raises is logged by
        ``concurrent.futures``: no caller is waiting to take it.
        """
        raw_method = _method_bytes(method)
        raw_url = _capi.encode(url, "url")
        raw_body = _body_bytes(body)
        if callback is not None and not callable(callback):
            raise TypeError("callback must be callable")
        pending = _Pending(keep_result=True)
        if callback is not None:
            pending.future.add_done_callback(callback)
        key = _callbacks.register(pending)
        handle = self._begin()
        try:
            _capi.ood_request_async(handle, raw_method, raw_url, raw_body, _callbacks.COMPLETION,
                                    _callbacks.payload(key))
        except BaseException:
            _callbacks.unregister(key)
            raise
        finally:
            self._end()
        return pending.future

    def route(self, url: str, method: str = "GET") -> Route:
        """Where ``method`` on ``url`` would go in the store's mode, and why, without running it."""
        raw_method = _method_bytes(method)
        raw_url = _capi.encode(url, "url")
        online = c_int()
        reason = c_void_p()
        handle = self._begin()
        try:
            _capi.ood_route(handle, raw_method, raw_url, byref(online), byref(reason))
        finally:
            self._end()
        return Route(bool(online.value), _capi.take_string(reason))

    # ---- synchronisation ---------------------------------------------------------------

    def _with_progress(self, progress: Optional[Progress], call: Callable[[Any, Any], None]) -> None:
        """Runs ``call(trampoline, payload)``; re-raises what ``progress`` raised once it returns."""
        if progress is not None and not callable(progress):
            raise TypeError("progress must be callable")
        guard = _callbacks.ProgressGuard(progress) if progress is not None else None
        key = _callbacks.register(guard) if guard is not None else 0
        try:
            call(_callbacks.PROGRESS if guard else _callbacks.NO_PROGRESS, _callbacks.payload(key))
        except AbortedError:
            if guard is not None and guard.stored_exception is not None:
                raise guard.stored_exception from None
            raise
        finally:
            if key:
                _callbacks.unregister(key)
        if guard is not None and guard.stored_exception is not None:
            raise guard.stored_exception

    def download(self, progress: Optional[Progress] = None) -> None:
        """Downloads every defining request and waits.

        ``progress(done, total)`` is called after each page with the entities so far of the
        defining request being downloaded (``total`` None when unknown); returning a true value
        stops the download (AbortedError), and an exception it raises stops it and is re-raised here.

        Raises:
            AbortedError: ``progress`` asked to stop (that defining request keeps its previous data).
            NetworkError, HTTPError: the service failed.
        """
        handle = self._begin()
        try:
            self._with_progress(progress, lambda trampoline, payload: _capi.ood_download(handle, trampoline, payload))
        finally:
            self._end()

    def upload(self, progress: Optional[Progress] = None) -> UploadResult:
        """Uploads the request queue, first in first out, and waits.

        ``progress(done, total)`` is called after each answered request with the requests sent so
        far and the queue's length; it stops the upload as for :meth:`download` (the rest stays queued).

        Returns:
            How many requests the service accepted, and how many it refused (now in the error archive).
        Raises:
            AbortedError: ``progress`` asked to stop.
            NetworkError, HTTPError: the service cannot take the queue now (it stays queued).
        """
        sent, archived = c_long(), c_long()
        handle = self._begin()
        try:
            self._with_progress(progress, lambda trampoline, payload: _capi.ood_upload(
                handle, trampoline, payload, byref(sent), byref(archived)))
        finally:
            self._end()
        return UploadResult(sent.value, archived.value)

    # ---- events and questions ------------------------------------------------------------

    def subscribe(self, callback: Optional[Callable[[Event], Any]] = None) -> Subscription:
        """Subscribes to the store's events from now on.

        With ``callback``, it is called with each :class:`Event` on the store's event thread (where
        blocking calls of this store raise BusyError); what it raises ends its deliveries and is
        re-raised by the subscription's ``close()``. Without, events queue up in the subscription
        (``get()``, ``wait_for()``, iteration).
        """
        return Subscription(self, callback)

    def explain(self, url: str) -> Dict[str, Any]:
        """What the offline store would do for the read ``url``:
        ``{"sql", "parameters", "countSQL", "insideScope", "definingRequests"}``.

        Raises:
            QuerySyntaxError, SemanticError: the model refuses the URL.
            MisuseError: the store has no file.
        """
        return self._json_call(_capi.ood_explain, _capi.encode(url, "url"))

    def status(self) -> Dict[str, Any]:
        """The store's state, mode, dialect, service, file, queue and archive lengths, defining requests."""
        return self._json_call(_capi.ood_store_status)

    def request_queue(self) -> List[Dict[str, Any]]:
        """The requests waiting for an upload, in upload order:
        ``{"id", "method", "url", "body", "entitySet", "transactionID", "createdAt"}`` each."""
        return self._json_call(_capi.ood_request_queue)

    def error_archive(self) -> List[Dict[str, Any]]:
        """The requests the service refused during uploads:
        ``{"id", "method", "url", "httpStatus", "message", "failedAt"}`` each."""
        return self._json_call(_capi.ood_error_archive)

    def delete_archived(self, request_id: Optional[int] = None) -> int:
        """Deletes one archived request (its ``id``), or all of them with None; returns how many.

        An entity with no archived request left is no longer marked in error.
        """
        if request_id is None:
            request_id = -1
        elif isinstance(request_id, bool) or not isinstance(request_id, int) or request_id < 0:
            raise ValueError("request_id must be a non-negative int (an id from error_archive()) or None")
        deleted = c_long()
        handle = self._begin()
        try:
            _capi.ood_error_archive_delete(handle, request_id, byref(deleted))
        finally:
            self._end()
        return deleted.value


class OfflineStore(Store):
    """A store in offline mode: every request is answered from the store file.

    ``OfflineStore(path, **options)`` is ``Store.open(path, mode=Mode.OFFLINE, **options)``; a
    ``service_root`` is still used by :meth:`download` and :meth:`upload`.
    """

    def __init__(self, path: PathLike, *, wait: bool = True, **options: Any):
        """Opens the store at ``path`` in offline mode; see :meth:`Store.open`."""
        if "mode" in options:
            raise TypeError("OfflineStore has its mode fixed; use Store.open(mode=...) instead")
        self._setup()
        self._open_with(Options(path=path, mode=Mode.OFFLINE, **options), wait)


class OnlineStore(Store):
    """A store in online mode: every request goes to the service at ``service_root``.

    ``OnlineStore(service_root, **options)`` is ``Store.open(service_root=..., mode=Mode.ONLINE, ...)``.
    """

    def __init__(self, service_root: str, *, wait: bool = True, **options: Any):
        """Opens an online store on ``service_root``; see :meth:`Store.open`."""
        if "mode" in options:
            raise TypeError("OnlineStore has its mode fixed; use Store.open(mode=...) instead")
        self._setup()
        self._open_with(Options(service_root=service_root, mode=Mode.ONLINE, **options), wait)
