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
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from . import _callbacks, _capi
from .errors import AbortedError, BusyError, MisuseError
from .events import Event, Subscription
from .options import Mode, Options, PathLike, _pairs
from .results import RedownloadResult, Result, Route, UndoResult, UploadResult, Value, unwrap

#: A progress callable: ``progress(done, total)``, total None when unknown; a true return stops.
Progress = Callable[[int, Optional[int]], Any]
#: A request body: a dict or list (sent as JSON), JSON text, or None.
Body = Union[Dict[str, Any], List[Any], str, bytes, None]
#: Extra request headers: a mapping of name -> value, or a sequence of (name, value) pairs.
Headers = Union[Mapping[str, str], Sequence[Tuple[str, str]], None]


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


def _header_lines(headers: Headers) -> Any:
    """The ``const char *const *`` array of ``headers`` ("Name: value" lines), or None for none."""
    if headers is None:
        return None
    lines = []
    for name, value in _pairs(headers, "headers"):
        if not isinstance(name, str) or not isinstance(value, str):
            raise TypeError("a header's name and value must be str")
        if ":" in name:
            # The library splits "Name: value" at the first colon: such a name would be sent wrong.
            raise _misuse(f"the header name {name!r} contains a colon")
        lines.append(_capi.encode(f"{name}: {value}", "a header"))
    return _capi.header_array(lines)


class RequestFuture(Future):  # type: ignore[type-arg]
    """The :class:`concurrent.futures.Future` of a request started with :meth:`Store.submit`.

    It stays pending until the request completes, then holds its :class:`Result` or its error.
    :meth:`cancel` asks the library to stop the request. The library's call handle
    (``ood_call``) is released as soon as the request completed and no :meth:`cancel` is using it.
    """

    def __init__(self) -> None:
        super().__init__()
        self._call_lock = threading.Lock()
        self._call: Optional[int] = None
        self._cancel_requested = False
        self._cancelling = 0
        self._settled = False

    def cancel(self) -> bool:
        """Asks the library to stop the request (``ood_call_cancel``).

        Like :meth:`asyncio.Task.cancel`, this is a request: it returns False when the future is
        done already (True if it was cancelled), and True otherwise. A request still held (the
        store is opening, or earlier writes run) or waiting for the service then ends cancelled:
        :meth:`cancelled` is True and :meth:`result` raises
        :class:`concurrent.futures.CancelledError`. A local read or write takes milliseconds and
        may finish normally: the future then holds its result (or error) as if not cancelled.
        Safe from any thread, also from inside a callback, and more than once.
        """
        with self._call_lock:
            if self._settled:
                return self.cancelled()
            self._cancel_requested = True
            handle = self._call
            if handle is None:
                return True  # _attach cancels it once ood_request_start has given the handle
            self._cancelling += 1
        try:
            _capi.ood_call_cancel(handle)
        finally:
            self._done_cancelling()
        return self.cancelled() if self.done() else True

    def _done_cancelling(self) -> None:
        with self._call_lock:
            self._cancelling -= 1
            handle = self._take_call_if_free()
        if handle is not None:
            _capi.ood_call_free(handle)

    def _take_call_if_free(self) -> Optional[int]:
        """Under the lock: the call handle, cleared, once nothing needs it any more; else None."""
        if self._settled and not self._cancelling and self._call is not None:
            handle, self._call = self._call, None
            return handle
        return None

    def _attach(self, handle: Optional[int]) -> None:
        """Keeps the ``ood_call *`` that ``ood_request_start`` gave (the completion may have run)."""
        if not handle:
            return
        with self._call_lock:
            self._call = handle
            cancel_now = self._cancel_requested and not self._settled
            if cancel_now:
                self._cancelling += 1
            free_now = self._take_call_if_free()
        if free_now is not None:
            _capi.ood_call_free(free_now)
        if cancel_now:
            try:
                _capi.ood_call_cancel(handle)
            finally:
                self._done_cancelling()

    def _settle(self, error: Optional[BaseException], result: Optional[int]) -> None:
        """Called once by the completion: the request's answer (an owned ``ood_result *``) or error."""
        with self._call_lock:
            self._settled = True
            cancelled = self._cancel_requested and isinstance(error, AbortedError)
            handle = self._take_call_if_free()
        if handle is not None:
            _capi.ood_call_free(handle)
        if cancelled:
            _capi.ood_result_free(result)
            Future.cancel(self)  # pending -> cancelled; runs the done callbacks
            self.set_running_or_notify_cancel()  # -> cancelled and notified: wake wait()/as_completed()
            return
        self.set_running_or_notify_cancel()
        if error is not None:
            _capi.ood_result_free(result)
            self.set_exception(error)
        else:
            self.set_result(Result._take(result))


class _Pending:
    """The payload of an asynchronous open: the Future its completion settles."""

    __slots__ = ("future",)

    def __init__(self) -> None:
        self.future: "Future[Any]" = Future()
        self.future.set_running_or_notify_cancel()

    def complete(self, error: Optional[BaseException], result: Optional[int]) -> None:
        if error is not None:
            _capi.ood_result_free(result)
            self.future.set_exception(error)
        else:
            _capi.ood_result_free(result)
            self.future.set_result(None)


class _PendingRequest:
    """The payload of a request started with ``ood_request_start``: its :class:`RequestFuture`."""

    __slots__ = ("future",)

    def __init__(self) -> None:
        self.future = RequestFuture()

    def complete(self, error: Optional[BaseException], result: Optional[int]) -> None:
        self.future._settle(error, result)


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
                pending = _Pending()
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

    def _request(self, method: bytes, url: bytes, body: Optional[bytes], headers: Any, out: c_void_p,
                 transaction: Optional[bytes] = None) -> None:
        """``ood_request`` (``ood_request_with_headers`` with headers, ``ood_request_in_transaction``
        with a transaction), counted as a call in progress."""
        handle = self._begin()
        try:
            if transaction is not None:
                _capi.ood_request_in_transaction(handle, transaction, method, url, body, headers, byref(out))
            elif headers is None:
                _capi.ood_request(handle, method, url, body, byref(out))
            else:
                _capi.ood_request_with_headers(handle, method, url, body, headers, byref(out))
        finally:
            self._end()

    def execute(self, method: str, url: str, body: Body = None, *, headers: Headers = None,
                transaction: Optional[str] = None) -> Result:
        """Runs one OData request and waits for its answer, routed as the store's mode says.

        Args:
            method: ``GET``, ``POST``, ``PUT``, ``PATCH``, ``MERGE`` or ``DELETE``.
            url: relative to the service root, in the service's dialect.
            body: the entity of a create or update (a dict is sent as JSON).
            headers: extra headers for the service (``If-Match``, ``Prefer``, ...): a mapping of
                name -> value or a sequence of (name, value) pairs. They add to the ``headers``
                option of the store for this request.
            transaction: a name for the transaction this write belongs to: writes with the same
                name are uploaded in one change set, applied or refused together, when the store
                uploads with ``batch_size`` and ``group_by_transaction``.

        Raises:
            QuerySyntaxError: the URL is not well formed (``offset`` says where).
            SemanticError, UnsupportedError, NotFoundError, ConstraintError: the request was refused.
            NetworkError, HTTPError: the service failed (online requests).
            BusyError: called from a callback of this store.
            MisuseError: the store is closed, or was opened with ``Store(path)``; a header without
                a name, with a colon in its name, or with CR or LF in it.
            TypeError: a header that is not a pair of str.
        """
        raw_method = _method_bytes(method)
        raw_url = _capi.encode(url, "url")
        raw_body = _body_bytes(body)
        raw_headers = _header_lines(headers)
        raw_transaction = None if transaction is None else _capi.encode(transaction, "transaction")
        out = c_void_p()
        self._request(raw_method, raw_url, raw_body, raw_headers, out, raw_transaction)
        return Result._take(out.value)

    def pages(self, url: str, *, headers: Headers = None) -> Iterator[Result]:
        """Reads ``url`` one page at a time: yields each page the service sends as a :class:`Result`
        (``value()`` gives its entities, ``next_link`` the link to the next page), asking for the
        next page only when the iteration gets there.

        :meth:`get` and :meth:`execute` give the whole collection instead (they follow the
        service's next links). A read answered offline is whole: one page, ``next_link`` None.
        ``url`` may also be a ``next_link`` kept from an earlier page, to go on from there.
        ``headers`` go with every page (``Prefer: odata.maxpagesize=N``, say).

        Raises what :meth:`execute` raises; ``NetworkError`` for a next link off the service's
        origin (nothing is sent there).
        """
        raw_headers = _header_lines(headers)
        link: Optional[str] = url
        while link is not None:
            raw_url = _capi.encode(link, "url")
            out = c_void_p()
            handle = self._begin()
            try:
                _capi.ood_request_page(handle, raw_url, raw_headers, byref(out))
            finally:
                self._end()
            page = Result._take(out.value)
            link = page.next_link
            yield page

    def get(self, url: str, *, raw: bool = False, headers: Headers = None) -> Union[Value, str]:
        """Reads ``url``: entities as a list of dicts, one entity as a dict, a ``$count`` as an int.

        A collection the service answers comes whole: its next links are followed (at most
        ``$top`` entities, within ``max_pages`` and ``max_response_size``); :meth:`pages` reads one
        page at a time.

        With ``raw=True`` it returns the answer's text as sent (OData JSON) instead. ``headers`` are
        extra headers for the service, as for :meth:`execute`. Raises what :meth:`execute` raises.
        """
        raw_url = _capi.encode(url, "url")
        raw_headers = _header_lines(headers)
        out = c_void_p()
        self._request(b"GET", raw_url, None, raw_headers, out)
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

    def create(self, entity_set: str, entity: Dict[str, Any], *, headers: Headers = None,
               transaction: Optional[str] = None) -> Value:
        """Creates ``entity`` in ``entity_set`` (POST) and returns the entity as stored.

        ``headers`` and ``transaction`` as for :meth:`execute`.
        """
        if not isinstance(entity, dict):
            raise TypeError("entity must be a dict")
        return self.execute("POST", entity_set, entity, headers=headers, transaction=transaction).value()

    def update(self, url: str, changes: Dict[str, Any], *, method: str = "PATCH",
               headers: Headers = None, transaction: Optional[str] = None) -> Value:
        """Changes the entity at ``url`` (PATCH by default; PUT replaces, MERGE is V2's PATCH).

        Returns the entity when the answer carries one, else None. ``headers`` are extra headers
        for the service (``If-Match`` for instance) and ``transaction`` its transaction, as for
        :meth:`execute`.
        """
        if not isinstance(changes, dict):
            raise TypeError("changes must be a dict")
        if method.upper() not in ("PATCH", "PUT", "MERGE"):
            raise ValueError("method must be PATCH, PUT or MERGE")
        return self.execute(method, url, changes, headers=headers, transaction=transaction).value()

    def delete(self, url: str, *, headers: Headers = None, transaction: Optional[str] = None) -> None:
        """Deletes the entity at ``url``; ``headers`` and ``transaction`` as for :meth:`execute`."""
        self.execute("DELETE", url, headers=headers, transaction=transaction)

    def submit(self, method: str, url: str, body: Body = None, *, headers: Headers = None,
               callback: "Optional[Callable[[Future[Result]], Any]]" = None) -> RequestFuture:
        """Starts one request and returns at once: a :class:`RequestFuture` of its :class:`Result`.

        The request completes exactly once, on a library thread; until then the future is pending.
        ``future.cancel()`` asks the library to stop it: one still held (while the store opens,
        or behind earlier writes) or waiting for the service then ends cancelled (``cancelled()``
        is True, ``result()`` raises ``CancelledError``); see :meth:`RequestFuture.cancel`.

        ``headers`` are extra headers for the service, as for :meth:`execute`. ``callback(future)``
        is called on the library thread when the request completes or is cancelled (it is attached
        before the request starts, so it never runs in the caller's thread); there, blocking calls
        of this store raise BusyError and ``submit`` works. As with any ``add_done_callback``,
        what the callback raises is logged by ``concurrent.futures``: no caller is waiting to take it.

        Raises:
            MisuseError: the store is closed; a bad header (the request is then not started).
            TypeError: an argument of the wrong type.
        """
        raw_method = _method_bytes(method)
        raw_url = _capi.encode(url, "url")
        raw_body = _body_bytes(body)
        raw_headers = _header_lines(headers)
        if callback is not None and not callable(callback):
            raise TypeError("callback must be callable")
        pending = _PendingRequest()
        if callback is not None:
            pending.future.add_done_callback(callback)
        key = _callbacks.register(pending)
        call = c_void_p()
        handle = self._begin()
        try:
            _capi.ood_request_start(handle, raw_method, raw_url, raw_body, raw_headers, _callbacks.COMPLETION,
                                    _callbacks.payload(key), byref(call))
        except BaseException:
            _callbacks.unregister(key)
            raise
        finally:
            self._end()
        pending.future._attach(call.value)
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

    def route_details(self, url: str, method: str = "GET") -> Dict[str, Any]:
        """:meth:`route` as JSON, like the other questions: ``{"destination": "offline" or
        "online", "reason", "coveringRequests": [names of the defining requests that cover it]}``."""
        return self._json_call(_capi.ood_route_json, _method_bytes(method), _capi.encode(url, "url"))

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

    def download(self, progress: Optional[Progress] = None, subset: Optional[Sequence[str]] = None,
                 full: bool = False) -> None:
        """Downloads the defining requests (all, or those named in ``subset``) and waits.

        Each uses the delta link of its last download when it has one; ``full=True`` downloads
        each whole instead, and what a request no longer returns leaves the store.

        ``progress(done, total)`` is called after each page with the entities so far of the
        defining request being downloaded (``total`` None when unknown); returning a true value
        stops the download (AbortedError), and an exception it raises stops it and is re-raised here.

        Raises:
            AbortedError: ``progress`` asked to stop (that defining request keeps its previous data).
            NetworkError, HTTPError: the service failed.
            MisuseError: ``subset`` names a defining request the store does not have.
            TypeError: ``subset`` is not a list of str, or ``full`` not a bool.
        """
        if not isinstance(full, bool):
            raise TypeError("full must be a bool")
        names = None
        if subset is not None:
            if isinstance(subset, (str, bytes)) or not all(isinstance(name, str) for name in subset):
                raise TypeError("subset must be a list of defining request names (str)")
            names = _capi.string_array([_capi.encode(name, "subset") for name in subset])
        handle = self._begin()
        try:
            if names is None and not full:
                self._with_progress(progress, lambda trampoline, payload: _capi.ood_download(handle, trampoline, payload))
            else:
                self._with_progress(progress, lambda trampoline, payload: _capi.ood_download_with(
                    handle, names, 1 if full else 0, trampoline, payload))
        finally:
            self._end()

    def upload(self, progress: Optional[Progress] = None) -> UploadResult:
        """Uploads the request queue, first in first out, and waits.

        ``progress(done, total)`` is called after each answered request with the requests sent so
        far and the queue's length; it stops the upload as for :meth:`download` (the rest stays queued).

        One upload at a time per store file: while another upload of the same file runs (another
        :class:`Store` on it, in this process or another), this raises BusyError at once, having
        sent and changed nothing.

        Returns:
            How many requests the service accepted, and how many it refused (now in the error archive).
        Raises:
            AbortedError: ``progress`` asked to stop.
            NetworkError, HTTPError: the service cannot take the queue now (it stays queued).
            BusyError: another upload of the same store file runs; try again when it has finished.
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
        ``{"sql", "parameters", "countSQL", "insideScope", "definingRequests", "plan"}``; ``"plan"``
        is SQLite's query plan, one step a line (the index the read searches, or a scan).

        Raises:
            QuerySyntaxError, SemanticError: the model refuses the URL.
            MisuseError: the store has no file.
        """
        return self._json_call(_capi.ood_explain, _capi.encode(url, "url"))

    def status(self) -> Dict[str, Any]:
        """The store's state, mode, dialect, service, file, queue and archive lengths, defining requests,
        and ``"indexes"``: ``{"entitySet", "properties", "name", "origin", "reason", "createdAt"}``
        each, origin ``"declared"`` or ``"automatic"``."""
        return self._json_call(_capi.ood_store_status)

    def check(self, quick: bool = False) -> List[Dict[str, str]]:
        """Checks the store file: SQLite's integrity check (its quick check with ``quick``) and the
        engine's own invariants (entities with local changes and their queued requests, what the
        defining requests hold, links, saved original values). Returns the findings, each
        ``{"check", "message"}`` (``"check"`` is ``"sqlite"``, ``"queue"``, ``"membership"``,
        ``"link"`` or ``"original"``); an empty list means the store is sound."""
        if not isinstance(quick, bool):
            raise TypeError("quick must be a bool")
        return self._json_call(_capi.ood_store_check, 1 if quick else 0)

    def request_queue(self) -> List[Dict[str, Any]]:
        """The requests waiting for an upload, in upload order:
        ``{"id", "method", "url", "body", "entitySet", "transactionID", "createdAt", "state"}`` each;
        ``"state"`` is ``"pending"``, or ``"sent"`` for a request sent whose answer was not
        recorded (the next upload finds out whether the service applied it)."""
        return self._json_call(_capi.ood_request_queue)

    def error_archive(self) -> List[Dict[str, Any]]:
        """The requests the service refused during uploads, or that need a decision:
        ``{"id", "method", "url", "httpStatus", "message", "failedAt", "kind"}`` each.

        ``"kind"`` is ``"refused"`` (the service refused the request), ``"conflict"`` (the entity
        changed on the service: 412, 409, 428) or ``"inDoubt"`` (sent, its answer lost, and the
        engine cannot find out whether the service applied it). Act on one with :meth:`requeue`
        (send it again, corrected or not) or :meth:`discard`."""
        return self._json_call(_capi.ood_error_archive)

    def metadata(self) -> Dict[str, Any]:
        """The service's data model (its ``$metadata``), summarised.

        The keys are ``"version"``, ``"namespaces"``, ``"entitySets"`` (each with ``"name"``,
        ``"entityType"``, ``"key"`` (property names), ``"properties"`` (``"name"``, ``"type"``,
        ``"nullable"``, maybe ``"maxLength"``) and ``"navigationProperties"`` (``"name"``,
        ``"target"``, ``"collection"``)), ``"singletons"`` (``"name"``, ``"entityType"``),
        ``"functionImports"`` (``"name"``, ``"httpMethod"``, ``"parameters"`` of ``"name"`` and
        ``"type"``, ``"returnType"``) and ``"actionImports"``.

        Raises:
            The error opening the store failed with; BusyError from a callback of this store.
        """
        return self._json_call(_capi.ood_metadata)

    def undo(self, url: str) -> UndoResult:
        """Undoes the local changes of one entity, addressed by its key (``"TravelagencyCollection('00000001')"``).

        Its requests leave the request queue and the error archive, and it gets back the values the
        service last sent, or disappears if it was created offline. Requests on other entities
        that build on it are not followed.

        Returns:
            Its entity set, what was done (``"removed"``, ``"restored"``, ``"unmarked"`` or
            ``"nothing"``, see :class:`UndoResult`) and how many requests were dropped.
        Raises:
            NotFoundError: the store has no such entity.
            QuerySyntaxError, SemanticError: the URL does not address one entity.
            MisuseError: the store has no file.
            BusyError: called from a callback of this store.
        """
        return UndoResult._from_json(self._json_call(_capi.ood_undo, _capi.encode(url, "url")))

    def redownload(self, url: str) -> RedownloadResult:
        """Reads one entity, addressed by its key (``"TravelagencyCollection('00000001')"``), from
        the service again and gives the store the service's version of it.

        For after :meth:`discard` or :meth:`undo` of a refused change, or whenever the service's
        current values are wanted. The entity takes every value the service sends and its ETag,
        and is no longer marked changed or in error; it keeps its links and its place in the
        defining requests. When the service answers 404, it leaves the store. An entity with
        queued or archived requests is refused: a re-download never drops a local change.

        Returns:
            Its entity set and what was done: ``"updated"`` or ``"removed"`` (see
            :class:`RedownloadResult`).
        Raises:
            MisuseError: the entity has queued or archived requests (upload, discard or undo
                them first), or the store has no file or no service root.
            NotFoundError: the store has no such entity.
            QuerySyntaxError, SemanticError: the URL does not address one entity.
            NetworkError, HTTPError: the service did not answer with the entity or 404 (nothing
                changes then).
            BusyError: called from a callback of this store.
        """
        return RedownloadResult._from_json(self._json_call(_capi.ood_redownload, _capi.encode(url, "url")))

    def discard(self, request_id: Optional[int] = None) -> int:
        """Discards one archived request (its ``id`` from :meth:`error_archive`), or all of them
        with None, with the requests that build on it: the later requests on the same entity,
        archived or still queued.

        When it was the entity's earliest request, the entity gets back the values the service
        last sent, as after :meth:`undo`: an entity created offline leaves the store. An entity
        with no archived request left is no longer marked in error.

        Returns:
            How many requests were dropped (archived and queued).
        Raises:
            NotFoundError: the archive has no request ``request_id``.
            ValueError: ``request_id`` is not a non-negative int or None.
            MisuseError: the store has no file.
            BusyError: called from a callback of this store.
        """
        request_id = _archive_id(request_id, allow_none=True)
        deleted = c_long()
        handle = self._begin()
        try:
            _capi.ood_error_archive_delete(handle, request_id, byref(deleted))
        finally:
            self._end()
        return deleted.value

    def delete_archived(self, request_id: Optional[int] = None) -> int:
        """The former name of :meth:`discard`, which it is."""
        return self.discard(request_id)

    def requeue(self, request_id: int, body: Body = None) -> int:
        """Sends an archived request again: it goes back into the request queue at its place in
        upload order (before the requests queued after it), with the later archived requests on
        its entity, and the next :meth:`upload` sends them. An ``"inDoubt"`` create requeued is
        sent again: the caller decided the service does not have it.

        Args:
            request_id: its ``id`` from :meth:`error_archive`.
            body: a corrected body (a dict, or JSON text or bytes) replacing the request's; None
                sends it unchanged. It is checked against the model as a local write's body is,
                and the entity takes its values (for a PUT, the properties it leaves out become
                null).
        Returns:
            How many requests went back to the queue.
        Raises:
            NotFoundError: the archive has no request ``request_id``.
            QuerySyntaxError, SemanticError, ConstraintError: the model refuses the body; nothing
                changes then.
            MisuseError: a body for a DELETE; the store has no file.
            BusyError: called from a callback of this store.
        """
        request_id = _archive_id(request_id, allow_none=False)
        raw_body = _body_bytes(body)
        requeued = c_long()
        handle = self._begin()
        try:
            _capi.ood_error_archive_requeue(handle, request_id, raw_body, byref(requeued))
        finally:
            self._end()
        return requeued.value


def _archive_id(request_id: Optional[int], allow_none: bool) -> int:
    """An archived request's id for the C library: -1 for None (all) where allowed."""
    if request_id is None and allow_none:
        return -1
    if isinstance(request_id, bool) or not isinstance(request_id, int) or request_id < 0:
        allowed = " or None" if allow_none else ""
        raise ValueError(f"request_id must be a non-negative int (an id from error_archive()){allowed}")
    return request_id


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
