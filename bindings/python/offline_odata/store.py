"""The store that answers requests: :class:`Store`.

``Store(path, ...)`` (or ``Store.open(...)``) opens a store that answers OData requests
(``ood_store_open_with``): offline from its file, online from its service, or both (mixed mode,
the default; ``mode=Mode.OFFLINE`` or ``Mode.ONLINE`` fixes it). :meth:`Store.open_file` opens the
same store from its file alone (``ood_store_open``).

Reads give typed values (see :mod:`offline_odata.values`): the store's ``$metadata`` is turned into
converters once (:class:`~offline_odata.schema.Schema`), on the first typed read.

Every blocking method releases the GIL while the library works, so threads run side by side; one
store may be shared by any number of threads. :meth:`Store.close` waits for the calls other
threads have in progress on the store, because the library must not see a handle used after it is
closed.
"""
import json
import os
import sys
from concurrent.futures import Future
from ctypes import byref, c_int, c_long, c_longlong, c_void_p, string_at
from typing import (TYPE_CHECKING, Any, BinaryIO, Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple,
                    Union)

from . import _callbacks, _capi, _reader
from ._handle import StoreHandle, misuse
from .entity import Entity
from .errors import AbortedError
from .events import Event, Subscription
from .futures import RequestFuture, _Pending, _PendingRequest
from .live import LiveAnswer, Watch
from .options import Options, PathLike, _pairs, key_options
from .results import AnswerShape, DownloadResult, RedownloadResult, Result, Route, UndoResult, UploadResult, Value
from .schema import Schema, TypedValue
from .sync_record import SyncLogEntry, SyncStatistics
from .upload_preview import UploadPreview
from .values import body_json

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from typing import Unpack
    else:
        from typing_extensions import Unpack
    from .options import StoreOptions

#: A progress callable: ``progress(done, total)``, total None when unknown; a true return stops.
Progress = Callable[[int, Optional[int]], Any]
#: A request body: a dict or list (sent as JSON, with Decimal, date, datetime, time, timedelta,
#: UUID and bytes values written as the store's dialect writes them), JSON text, or None.
Body = Union[Dict[str, Any], List[Any], str, bytes, None]
#: Extra request headers: a mapping of name -> value, or a sequence of (name, value) pairs.
Headers = Union[Mapping[str, str], Sequence[Tuple[str, str]], None]


def _method_bytes(method: str) -> bytes:
    if not isinstance(method, str) or not method:
        raise TypeError("method must be a non-empty str such as 'GET' or 'POST'")
    return method.upper().encode("ascii")


def _mergeable(mergeable: bool) -> bool:
    """The ``mergeable`` keyword, checked."""
    if not isinstance(mergeable, bool):
        raise TypeError("mergeable must be a bool")
    return mergeable


_READ_URLS = _reader._URLS
_THREAD = _reader._local
_GET_INTO = _reader.get_into_converted
_CHECK = _capi.errcheck_status


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
            raise misuse(f"the header name {name!r} contains a colon")
        lines.append(_capi.encode(f"{name}: {value}", "a header"))
    return _capi.header_array(lines)


def _count_url(url: str) -> str:
    """``url`` asking for its ``/$count`` (added to its path unless there)."""
    path, question, query = url.partition("?")
    if not path.rstrip("/").endswith("/$count"):
        path = path.rstrip("/") + "/$count"
    return path + question + query


class _FileOrStoreMethod:
    """A method that is a static function on the class and a bound method on an instance:
    ``Store.rekey(path, ...)`` for a closed file, ``store.rekey(...)`` for an open store."""

    def __init__(self, on_class: Any, on_store: Callable[..., None]) -> None:
        self._on_class = on_class
        self._on_store = on_store

    def __get__(self, instance: Optional["Store"], owner: Optional[type] = None) -> Callable[..., None]:
        if instance is None:
            function: Callable[..., None] = self._on_class.__get__(None, owner)
            return function
        on_store = self._on_store
        return lambda *arguments, **keywords: on_store(instance, *arguments, **keywords)


class Store(StoreHandle):
    """An OfflineOData store that answers OData requests: offline from its file, online from its
    service, or both (mixed mode, the default).

    Use it as a context manager, or call :meth:`close`; closing twice is harmless, and a store left
    open is closed when collected or at interpreter exit.

    >>> with Store("travel.store", service_root=SERVICE,                   # doctest: +SKIP
    ...            defining_requests={"Agencies": "TravelagencyCollection"}) as store:
    ...     agencies = store.entities("TravelagencyCollection?$filter=country eq 'US'")
    """

    def __init__(self, path: Optional[PathLike] = None, *, wait: bool = True,
                 **options: "Unpack[StoreOptions]") -> None:
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
        self._setup()
        self._open_with(Options(path=path, **options), wait)
        self._ready(wait)

    @classmethod
    def open(cls, path: Optional[PathLike] = None, *, wait: bool = True,
             **options: "Unpack[StoreOptions]") -> "Store":
        """``Store(path, wait=..., **options)``: opens a store that answers requests."""
        return Store(path, wait=wait, **options)

    @staticmethod
    def _rekey_file(path: PathLike, *, key: Optional[bytes] = None, passphrase: Optional[str] = None,
                    new_key: Optional[bytes] = None, new_passphrase: Optional[str] = None) -> None:
        """Changes the key of the closed store file at ``path`` (``ood_store_rekey``): from ``key``
        or ``passphrase`` (neither: a plain file) to ``new_key`` or ``new_passphrase`` (neither:
        decrypt it). A process killed meanwhile leaves a store that opens with exactly one of the
        two keys. See docs/ENCRYPTION.md.

        Raises:
            StoreKeyError: the old key does not open the store (nothing changes).
            BusyError: the store is open elsewhere.
        """
        text = os.fspath(path)
        if not isinstance(text, str):
            raise TypeError("path must be a str or os.PathLike[str]")
        with key_options(key, passphrase) as old, key_options(new_key, new_passphrase) as new:
            _capi.ood_store_rekey(_capi.encode(text, "path"), old, new)

    def _rekey_open(self, *, new_key: Optional[bytes] = None, new_passphrase: Optional[str] = None) -> None:
        """Changes the key of this open store (``ood_rekey``) to ``new_key`` or ``new_passphrase``
        (neither: decrypt it; a plain store is encrypted). The requests running finish first,
        those issued meanwhile wait; the queue and live queries go on. A process killed meanwhile
        leaves a store that opens with exactly one of the two keys.

        Raises:
            MisuseError: a plain store and no new key.
            BusyError: another handle or process has the file open (nothing changes).
        """
        handle = self._begin()
        try:
            with key_options(new_key, new_passphrase) as new:
                _capi.ood_rekey(handle, new)
        finally:
            self._end()

    #: ``Store.rekey(path, key=..., new_key=...)`` changes the key of a closed store file;
    #: ``store.rekey(new_key=...)`` that of this open store.
    rekey = _FileOrStoreMethod(_rekey_file, _rekey_open)

    @classmethod
    def open_file(cls, path: PathLike, *, key: Optional[bytes] = None, passphrase: Optional[str] = None) -> "Store":
        """The store at ``path``, opened as its file describes it (``ood_store_open``; with ``key``
        or ``passphrase``, an encrypted file, ``ood_store_open_keyed``): its saved
        ``$metadata``, defining requests, indexes and service root, with no options. It is a store
        like any other: reads, local writes, the queue, :meth:`status`, :meth:`check`, and
        downloads and uploads when the file keeps its service root (else they raise
        :class:`~offline_odata.MisuseError` saying to open it with ``service_root``). Opening sends
        nothing to the service. Where no file is, it makes one that answers only :attr:`path`,
        :attr:`format_version` and :meth:`check` until opened with its ``metadata`` or a ``service_root``.

        >>> with Store.open_file("travel.store") as store:                  # doctest: +SKIP
        ...     store.format_version, len(store.entities("TravelagencyCollection"))
        (7, 24)

        Raises:
            TypeError: ``path`` is not a str or path-like.
            MisuseError: the path is empty.
            CannotOpenError: the path cannot be opened or created.
            NotAStoreError: the file is not an OfflineOData store.
            StoreKeyError: a wrong key, none for an encrypted file, or one for a plain file.
        """
        text = os.fspath(path)
        if not isinstance(text, str):
            raise TypeError("path must be a str or os.PathLike[str]")
        store = cls.__new__(cls)
        store._setup()
        handle = c_void_p()
        with key_options(key, passphrase) as keyed:
            _capi.ood_store_open_keyed(_capi.encode(text, "path"), keyed, byref(handle))
        store._adopt(handle)
        return store

    def _setup(self) -> None:
        super()._setup()
        self._opened: "Optional[Future[None]]" = None
        self._schema: Optional[Schema] = None
        self._v2: Optional[bool] = None

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

    # ---- typed values ------------------------------------------------------------------

    def _ready(self, wait: bool) -> None:
        """Once opened and waited for: makes the converter tables now, so the first read is as fast as the next."""
        if wait:
            self._types()

    def _is_v2(self) -> bool:
        """Whether the store speaks OData V2 (asked once)."""
        if self._v2 is None:
            self._v2 = self.status().get("dialect") == "v2"
        return self._v2

    def _types(self) -> Schema:
        """The converter tables of this store's model, made on the first typed read."""
        schema = self._schema
        if schema is None:
            status = self.status()
            self._v2 = status.get("dialect") == "v2"
            schema = self._schema = Schema(self.metadata(), self._v2)
        return schema

    def _body(self, body: Body) -> Optional[bytes]:
        """A request body as bytes: dicts and lists as JSON in the store's dialect."""
        if body is None:
            return None
        if isinstance(body, (dict, list)):
            return body_json(body, self._is_v2)
        if isinstance(body, bytes):
            return body
        if isinstance(body, str):
            return body.encode("utf-8")
        raise TypeError(f"body must be a dict, a list, str, bytes or None, not {type(body).__name__}")

    def _answer(self, url: str, method: bytes = b"GET", body: Optional[bytes] = None, headers: Any = None,
                transaction: Optional[bytes] = None, raw: bool = False, mergeable: bool = True) -> Union[TypedValue, str]:
        """Runs a request and decodes its answer (typed), or gives its text with ``raw``.
        The hot path of reads: one copy of the body into bytes, json.loads, the converters."""
        raw_url = _capi.encode(url, "url")
        schema = None if raw else self._types()
        out = c_void_p()
        self._request(method, raw_url, body, headers, out, transaction, mergeable)
        try:
            view = _capi.AnswerView()
            _capi.ood_result_view(out, view)
            answer = string_at(view.body, view.length) if view.body and view.length else b""
            if schema is None:
                return answer.decode("utf-8")
            content_type = view.content_type or b""
            shape = AnswerShape._of_view(view)
        finally:
            _capi.ood_result_free(out)
        return schema.decode(answer, content_type.decode("ascii", "replace"), shape)

    # ---- requests ----------------------------------------------------------------------

    def _request(self, method: bytes, url: bytes, body: Optional[bytes], headers: Any, out: c_void_p,
                 transaction: Optional[bytes] = None, mergeable: bool = True) -> None:
        """``ood_request`` (``ood_request_with_headers`` with headers, ``ood_request_in_transaction``
        with a transaction, ``ood_request_unmerged`` when not mergeable), counted as a call in progress."""
        handle = self._begin()
        try:
            if not mergeable:
                _capi.ood_request_unmerged(handle, transaction, method, url, body, headers, byref(out))
            elif transaction is not None:
                _capi.ood_request_in_transaction(handle, transaction, method, url, body, headers, byref(out))
            elif headers is None:
                _capi.ood_request(handle, method, url, body, byref(out))
            else:
                _capi.ood_request_with_headers(handle, method, url, body, headers, byref(out))
        finally:
            self._end()

    def execute(self, method: str, url: str, body: Body = None, *, headers: Headers = None,
                transaction: Optional[str] = None, mergeable: bool = True) -> Result:
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
            mergeable: False keeps this offline write's queued request as it is when the queue
                is compacted (:meth:`compact_queue`, and before each upload): never merged with
                the entity's other requests nor dropped.

        Raises:
            QuerySyntaxError: the URL is not well formed (``offset`` says where).
            SemanticError, UnsupportedError, NotFoundError, ConstraintError: the request was refused.
            NetworkError, HTTPError: the service failed (online requests).
            BusyError: called from a callback of this store.
            MisuseError: the store is closed; a header without
                a name, with a colon in its name, or with CR or LF in it.
            TypeError: a header that is not a pair of str.
        """
        raw_method = _method_bytes(method)
        raw_url = _capi.encode(url, "url")
        raw_body = self._body(body)
        raw_headers = _header_lines(headers)
        raw_transaction = None if transaction is None else _capi.encode(transaction, "transaction")
        out = c_void_p()
        self._request(raw_method, raw_url, raw_body, raw_headers, out, raw_transaction, _mergeable(mergeable))
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

    def get(self, url: str, *, raw: bool = False, headers: Headers = None) -> Union[TypedValue, str]:
        """Reads ``url``: entities as a list of :class:`Entity`, one entity as an :class:`Entity`,
        a ``$count`` as an int, a raw value (``/$value``) as its text, a media entity's stream
        (``Documents(1)/$value``, from its file, at most 64 MiB: larger ones through
        :meth:`open_stream`) as bytes, with typed values (``Edm.Decimal`` as :class:`decimal.Decimal`,
        dates and times as :mod:`datetime` values, ``Edm.Guid`` as :class:`uuid.UUID`, ...).

        A collection the service answers comes whole: its next links are followed (at most
        ``$top`` entities, within ``max_pages`` and ``max_response_size``); :meth:`iter` and
        :meth:`pages` read one page at a time. :meth:`entities`, :meth:`entity` and :meth:`count`
        are the same read with one type each.

        With ``raw=True`` it returns the answer's text as sent (OData JSON) instead. ``headers`` are
        extra headers for the service, as for :meth:`execute`. Raises what :meth:`execute` raises.
        """
        if headers is not None:
            return self._answer(url, headers=_header_lines(headers), raw=raw)
        # Without headers, the hot path of reads: one ctypes call (ood_get_into, see _reader.py),
        # the answer decoded here. Written out in one frame (the reader's, _begin's and _end's
        # steps inline): each Python call saved is a few percent of a key read's cost.
        try:
            raw_url = _READ_URLS[url]  # the URLs read before, checked and encoded then
        except (KeyError, TypeError):
            raw_url = _reader.url_bytes(url)
        schema = None if raw else self._types()
        try:
            reader = _THREAD.reader
        except AttributeError:
            reader = _reader.reader()
        self._began()
        handle = self._handle
        if handle is None:
            self._end()
            raise misuse("the store is closed")
        try:
            status = _GET_INTO(handle, raw_url, reader.buffer_ref, reader.capacity_arg, reader.view_ref,
                               reader.spill_ref)
            if status:
                _CHECK(status, None, ())
            if schema is None:
                if reader.spill.value is None:  # bytes' decode: faster than str(memoryview, "utf-8")
                    return reader.memory[:reader.view.length].tobytes().decode("utf-8")
                return reader.unspill()[0].decode("utf-8")
            body, content_type, shape = reader.answer()
        finally:
            self._ended()
            if self._handle is None:
                self._wake_close()
        return schema.decode(body, content_type, shape)

    def entities(self, url: str, *, headers: Headers = None) -> List[Entity]:
        """Reads the collection at ``url`` as a list of :class:`Entity` (typed values).

        Raises:
            ValueError: ``url`` answers something else than a collection (one entity, a count).
            And what :meth:`execute` raises.
        """
        answer = self.get(url, headers=headers)
        if not isinstance(answer, list):
            raise ValueError(f"Store.entities: {url!r} does not answer a collection (use entity() or count())")
        return answer

    def entity(self, url: str, *, headers: Headers = None) -> Entity:
        """Reads the one entity at ``url`` (its key, or a single-valued navigation) as an :class:`Entity`.

        Raises:
            NotFoundError: there is no such entity.
            ValueError: ``url`` answers something else than one entity (a collection, a count).
            And what :meth:`execute` raises.
        """
        answer = self.get(url, headers=headers)
        if not isinstance(answer, Entity):
            raise ValueError(f"Store.entity: {url!r} does not answer one entity (use entities() or count())")
        return answer

    def count(self, url: str, *, headers: Headers = None) -> int:
        """How many entities the collection at ``url`` has (its ``$filter`` applied): ``/$count`` is
        added to the path unless it ends with it.

        Raises what :meth:`execute` raises; ``ValueError`` when the answer is not a count.
        """
        answer = self.get(_count_url(url), headers=headers)
        if not isinstance(answer, int) or isinstance(answer, bool):
            raise ValueError(f"Store.count: {url!r} does not answer a count")
        return answer

    def iter(self, url: str, *, headers: Headers = None) -> Iterator[Entity]:
        """The entities of the collection at ``url``, one page at a time (see :meth:`pages`): the
        next page is asked for only when the iteration gets there, so a large answer is never
        held whole. ``for agency in store.iter("TravelagencyCollection"): ...``

        Raises what :meth:`pages` raises; ``ValueError`` when ``url`` answers no collection.
        """
        schema = self._types()
        shape: Optional[AnswerShape] = None
        for page in self.pages(url, headers=headers):
            # The first page says what the collection is; a next link's page is the service's URL.
            shape = shape or page.shape
            answer = schema.decode(page.body, page.content_type, shape)
            if not isinstance(answer, list):
                raise ValueError(f"Store.iter: {url!r} does not answer a collection (use entity() or count())")
            yield from answer

    def create(self, entity_set: str, entity: Dict[str, Any], *, headers: Headers = None,
               transaction: Optional[str] = None, mergeable: bool = True) -> Entity:
        """Creates ``entity`` in ``entity_set`` (POST) and returns the entity as stored (typed).

        ``entity`` may hold the Python types reads give (Decimal, date, datetime, UUID, ...); they
        are written as the store's dialect wants. ``headers``, ``transaction`` and ``mergeable`` as for
        :meth:`execute`.
        """
        if not isinstance(entity, dict):
            raise TypeError("entity must be a dict")
        answer = self._write("POST", entity_set, entity, headers, transaction, mergeable)
        if not isinstance(answer, Entity):
            raise ValueError(f"Store.create: the answer to the create in {entity_set!r} holds no entity")
        return answer

    def update(self, url: str, changes: Dict[str, Any], *, method: str = "PATCH",
               headers: Headers = None, transaction: Optional[str] = None, mergeable: bool = True) -> Optional[Entity]:
        """Changes the entity at ``url`` (PATCH by default; PUT replaces, MERGE is V2's PATCH).

        Returns the entity (typed) when the answer carries one, else None. ``changes`` takes the
        Python types as :meth:`create` does. ``headers`` are extra headers for the service
        (``If-Match`` for instance), ``transaction`` its transaction and ``mergeable`` as for :meth:`execute`.
        """
        if not isinstance(changes, dict):
            raise TypeError("changes must be a dict")
        if not isinstance(method, str) or method.upper() not in ("PATCH", "PUT", "MERGE"):
            raise ValueError("method must be PATCH, PUT or MERGE")
        answer = self._write(method, url, changes, headers, transaction, mergeable)
        return answer if isinstance(answer, Entity) else None

    def _write(self, method: str, url: str, body: Body, headers: Headers, transaction: Optional[str],
               mergeable: bool = True) -> Any:
        raw_method = _method_bytes(method)
        raw_body = self._body(body)
        raw_transaction = None if transaction is None else _capi.encode(transaction, "transaction")
        return self._answer(url, raw_method, raw_body, _header_lines(headers), raw_transaction,
                            mergeable=_mergeable(mergeable))

    def delete(self, url: str, *, headers: Headers = None, transaction: Optional[str] = None,
               mergeable: bool = True) -> None:
        """Deletes the entity at ``url``; ``headers``, ``transaction`` and ``mergeable`` as for :meth:`execute`."""
        self.execute("DELETE", url, headers=headers, transaction=transaction, mergeable=mergeable)

    def execute_async(self, method: str, url: str, body: Body = None, *, headers: Headers = None,
                      callback: "Optional[Callable[[Future[Result]], Any]]" = None) -> RequestFuture:
        """:meth:`execute` without waiting, as Swift's ``async`` ``execute``: starts the request and
        returns at once a :class:`RequestFuture` of its :class:`Result` (see :meth:`submit`, the
        same call under its former name). ``asyncio`` code awaits it with
        ``await asyncio.wrap_future(store.execute_async(...))``."""
        return self.submit(method, url, body, headers=headers, callback=callback)

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
        raw_body = self._body(body)
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

    def stream_file(self, url: str) -> Tuple[str, int, str]:
        """The file holding the stream of the media entity ``url`` addresses
        (``"Documents(1)/$value"``), as the offline store has it (docs/MEDIA.md): its path, length
        and content type. The store reads none of its bytes.

        Raises:
            NotFoundError: no such entity, or no stream for it yet.
            SemanticError: ``url`` is not one media entity by its key.
        """
        raw_url = _capi.encode(url, "url")
        path, length, content_type = c_void_p(), c_longlong(), c_void_p()
        handle = self._begin()
        try:
            _capi.ood_stream_file(handle, raw_url, byref(path), byref(length), byref(content_type))
        finally:
            self._end()
        return _capi.take_string(path), length.value, _capi.take_string(content_type)

    def open_stream(self, url: str) -> BinaryIO:
        """The stream of the media entity ``url`` addresses, as a binary file object opened for
        reading (read it in pieces: it is never loaded whole). The store replaces a stream's file,
        never changes it in place, so the file object keeps its version. Raises as
        :meth:`stream_file`."""
        return open(self.stream_file(url)[0], "rb")

    def create_media(self, entity_set: str, file_path: "os.PathLike[str] | str", content_type: str,
                     properties: Optional[Mapping[str, Any]] = None) -> Result:
        """Creates a media entity offline (docs/MEDIA.md): its stream is the file at ``file_path``
        (copied into the store a buffer at a time), of ``content_type``; ``properties`` its values
        without the key. :meth:`upload` sends the stream, then the properties. Returns the answer
        (201, the entity as stored with its provisional key, ``Location``).

        Raises:
            SemanticError: not a media entity set. NotFoundError: the file cannot be read.
            MisuseError: a stream past the limits, a closed store.
        """
        raw_set = _capi.encode(entity_set, "entity_set")
        raw_path = _capi.encode(os.fspath(file_path), "file_path")
        raw_type = _capi.encode(content_type, "content_type")
        raw_body = None if properties is None else _capi.encode(json.dumps(dict(properties)), "properties")
        out = c_void_p()
        handle = self._begin()
        try:
            _capi.ood_stream_create(handle, raw_set, raw_path, raw_type, raw_body, byref(out))
        finally:
            self._end()
        return Result._take(out.value)

    def replace_stream(self, url: str, file_path: "os.PathLike[str] | str", content_type: str) -> None:
        """Replaces the stream of the media entity ``url`` (``Documents(1)`` or
        ``Documents(1)/$value``) offline with the file at ``file_path``, of ``content_type``
        (docs/MEDIA.md): readable offline at once; :meth:`upload` sends a ``PUT`` of its ``$value``
        in queue order.

        Raises:
            NotFoundError: no such entity, or the file cannot be read. SemanticError: not one media
            entity by its key. MisuseError: a stream past the limits, a create in doubt, a closed store.
        """
        raw_url = _capi.encode(url, "url")
        raw_path = _capi.encode(os.fspath(file_path), "file_path")
        raw_type = _capi.encode(content_type, "content_type")
        handle = self._begin()
        try:
            _capi.ood_stream_replace(handle, raw_url, raw_path, raw_type)
        finally:
            self._end()

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
        return self._json_object(_capi.ood_route_json, _method_bytes(method), _capi.encode(url, "url"))

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
                 full: bool = False, check_model: bool = True) -> List[DownloadResult]:
        """Downloads the defining requests (all, or those named in ``subset``) and waits.

        Each uses the delta link of its last download when it has one; ``full=True`` downloads
        each whole instead, and what a request no longer returns leaves the store. A download
        interrupted part-way (killed, a network failure) resumes at the page after the last one it
        kept: its result's ``resumed_at_page`` says where, ``fetched_pages`` what this call fetched.

        ``progress(done, total)`` is called after each page with the entities so far of the
        defining request being downloaded (``total`` None when unknown); returning a true value
        stops the download (AbortedError), and an exception it raises stops it and is re-raised here.

        Every download first checks the service's ``$metadata`` (:meth:`check_service`): a
        compatible change is migrated and the download goes on, any other stops it
        (MetadataError) until :meth:`adopt_service_model`. ``check_model=False`` skips the check:
        for a service that never serves its ``$metadata``, or right after checking.

        Returns:
            One :class:`DownloadResult` per defining request downloaded, in order.
        Raises:
            AbortedError: ``progress`` asked to stop (that defining request keeps its previous data).
            NetworkError, HTTPError: the service failed (the ``$metadata`` check included).
            MetadataError: the service's model changed in a way that needs the app's choice, or
                the service does not serve its ``$metadata`` (the message says which).
            MisuseError: ``subset`` names a defining request the store does not have.
            TypeError: ``subset`` is not a list of str, or ``full`` or ``check_model`` not a bool.
        """
        if not isinstance(full, bool):
            raise TypeError("full must be a bool")
        if not isinstance(check_model, bool):
            raise TypeError("check_model must be a bool")
        flags = (_capi.OOD_DOWNLOAD_FULL if full else 0) | (0 if check_model else _capi.OOD_DOWNLOAD_NO_MODEL_CHECK)
        names = None
        if subset is not None:
            if isinstance(subset, (str, bytes)) or not all(isinstance(name, str) for name in subset):
                raise TypeError("subset must be a list of defining request names (str)")
            names = _capi.string_array([_capi.encode(name, "subset") for name in subset])
        out = c_void_p()
        handle = self._begin()
        try:
            self._with_progress(progress, lambda trampoline, payload: _capi.ood_download_flags(
                handle, names, flags, trampoline, payload, byref(out)))
        finally:
            self._end()
        document = json.loads(_capi.take_string(out))
        return [DownloadResult._from_json(entry) for entry in document["downloads"]]

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

    def preview_upload(self) -> UploadPreview:
        """What :meth:`upload` would send now, in order, with the store's batching (``batch=``):
        each step's HTTP request with its headers (credentials masked as ``***``; values only the
        upload knows, such as the CSRF token or an ETag an earlier answer brings, as ``<...>``
        placeholders) and body, the ``$batch`` bodies with their change sets. Nothing is sent and
        nothing in the store changes.

        Raises:
            MisuseError: the store has no service root.
        """
        return UploadPreview._from_json(self._json_object(_capi.ood_upload_preview))

    # ---- events and questions ------------------------------------------------------------

    def subscribe(self, callback: Optional[Callable[[Event], Any]] = None) -> Subscription:
        """Subscribes to the store's events from now on.

        With ``callback``, it is called with each :class:`Event` on the store's event thread (where
        blocking calls of this store raise BusyError); what it raises ends its deliveries and is
        re-raised by the subscription's ``close()``. Without, events queue up in the subscription
        (``get()``, ``wait_for()``, iteration).
        """
        return Subscription(self, callback)

    def watch(self, url: str, callback: Optional[Callable[[LiveAnswer], Any]] = None,
              interval: Optional[float] = None) -> Watch:
        """Watches the local read ``url``: its current answer at once, then each new one after a
        committed transaction changed it (a local write, a download, an upload, undo, another
        handle or process writing the file). A commit that changed no table the read depends on
        does not run it; an unchanged answer is not delivered; runs are at least ``interval``
        seconds apart (0.03 by default), and the last one starts after the last commit.

        With ``callback``, it is called with each :class:`LiveAnswer` on the store's live-query
        thread; what it raises ends its deliveries and is re-raised by the watch's ``close()``.
        Without, answers queue up in the watch (``get()``, ``for``, ``async for``).

        Raises:
            UnsupportedError: not a read the offline store answers (a write, a read routed to the
                service, ``$metadata``).
            QuerySyntaxError, SemanticError: the model refuses the URL.
        """
        return Watch(self, url, callback, interval)

    def explain(self, url: str) -> Dict[str, Any]:
        """What the offline store would do for the read ``url``:
        ``{"sql", "parameters", "countSQL", "insideScope", "definingRequests", "plan"}``; ``"plan"``
        is SQLite's query plan, one step a line (the index the read searches, or a scan).

        Raises:
            QuerySyntaxError, SemanticError: the model refuses the URL.
            MisuseError: the store has no file.
        """
        return self._json_object(_capi.ood_explain, _capi.encode(url, "url"))

    def status(self) -> Dict[str, Any]:
        """The store's state, mode, dialect, service, file, queue and archive lengths, defining requests,
        and ``"indexes"``: ``{"entitySet", "properties", "name", "origin", "reason", "createdAt"}``
        each, origin ``"declared"`` or ``"automatic"``."""
        return self._json_object(_capi.ood_store_status)

    def sync_statistics(self) -> SyncStatistics:
        """What the store recorded of its syncs: the last download of each defining request
        (entities, bytes, pages, duration, outcome, last success), the queue's depth and the age of
        its oldest request, what is in doubt or archived, and the last upload. Kept in the store,
        so it survives a restart.

        Raises:
            MisuseError: the store has no file (an online store).
        """
        sync = self.status().get("sync")
        if sync is None:
            raise misuse("sync_statistics: the store has no file, so it records no syncs")
        return SyncStatistics._from_json(sync)

    def sync_log(self, limit: Optional[int] = None) -> List[SyncLogEntry]:
        """The sync log, newest first: one entry per download of a defining request, per upload and
        per request the service refused (the newest :data:`SYNC_LOG_CAPACITY` are kept). ``limit``
        gives only the newest so many.

        Raises:
            TypeError, ValueError: ``limit`` is not an int of 0 or more.
            MisuseError: the store has no file.
        """
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool)):
            raise TypeError("limit must be an int or None")
        if limit is not None and limit < 0:
            raise ValueError(f"limit must be 0 or more, not {limit}")
        entries = self._json_list(_capi.ood_store_sync_log, -1 if limit is None else limit)
        return [SyncLogEntry._from_json(entry) for entry in entries]

    def check(self, quick: bool = False) -> List[Dict[str, Any]]:
        """Checks the store file: SQLite's integrity check (its quick check with ``quick``) and the
        engine's own invariants (entities with local changes and their queued requests, what the
        defining requests hold, links, saved original values). Returns the findings, each
        ``{"check", "message"}`` (``"check"`` is ``"sqlite"``, ``"queue"``, ``"membership"``,
        ``"link"`` or ``"original"``); an empty list means the store is sound."""
        if not isinstance(quick, bool):
            raise TypeError("quick must be a bool")
        return self._json_list(_capi.ood_store_check, 1 if quick else 0)

    def request_queue(self) -> List[Dict[str, Any]]:
        """The requests waiting for an upload, in upload order:
        ``{"id", "method", "url", "body", "entitySet", "transactionID", "createdAt", "state", "mergeable"}``
        each; ``"state"`` is ``"pending"``, or ``"sent"`` for a request sent whose answer was not
        recorded (the next upload finds out whether the service applied it); ``"mergeable"`` is
        False for a write made with ``mergeable=False``."""
        return self._json_list(_capi.ood_request_queue)

    def compact_queue(self) -> Dict[str, Any]:
        """Compacts the request queue now, as each upload does first (unless the option
        ``compact_upload_queue`` is False): a create followed by updates of its entity becomes one
        create with the final values, consecutive updates merge (later values win), updates
        followed by a delete become the delete, a create followed by a delete disappears with
        everything between. Never across a transaction, a request naming the entity, a write made
        with ``mergeable=False``, a request already sent, or links and nested values. Returns
        ``{"queued": N, "dropped": [ids], "replaced": [{"id", "replaces": [ids]}],
        "cancelled": [{"entitySet", "entityID"}]}``.

        Raises:
            BusyError: an upload of the store runs (in this process or another).
        """
        return self._json_object(_capi.ood_queue_compact)

    def error_archive(self) -> List[Dict[str, Any]]:
        """The requests the service refused during uploads, or that need a decision:
        ``{"id", "method", "url", "httpStatus", "message", "failedAt", "kind"}`` each.

        ``"kind"`` is ``"refused"`` (the service refused the request), ``"conflict"`` (the entity
        changed on the service: 412, 409, 428) or ``"inDoubt"`` (sent, its answer lost, and the
        engine cannot find out whether the service applied it). Act on one with :meth:`requeue`
        (send it again, corrected or not) or :meth:`discard`."""
        return self._json_list(_capi.ood_error_archive)

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
        return self._json_object(_capi.ood_metadata)

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
        return UndoResult._from_json(self._json_object(_capi.ood_undo, _capi.encode(url, "url")))

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
        return RedownloadResult._from_json(self._json_object(_capi.ood_redownload, _capi.encode(url, "url")))

    def create_automatic_indexes(self) -> List[Dict[str, Any]]:
        """Makes now the automatic indexes the reads seen so far call for (a read shape seen ten
        times that no index serves), as a download does after its data; returns those made, as
        :meth:`status` lists indexes (``[]`` when none was due)."""
        return self._json_list(_capi.ood_create_automatic_indexes)

    def check_service(self) -> Dict[str, Any]:
        """Whether the service's ``$metadata`` changed since the store's model, and how.

        One conditional request where the service gives an ETag or a date, else the document and
        its hash. Every download runs the same check first: a compatible change is migrated in
        place, any other stops the download until :meth:`adopt_service_model`.

        Returns:
            ``{"changed", "evidence", "impact", "migrated", "refusedRequests": [ids],
            "differences": [{"kind", "entitySet", "type", "member", "old", "new", "impact",
            "queuedRequests"}]}``; impacts are ``"compatible"``, ``"needsData"`` and
            ``"breaksPendingChanges"``.
        """
        return self._json_object(_capi.ood_check_service)

    def adopt_service_model(self, choice: str = "uploadFirst") -> Dict[str, Any]:
        """Adopts the service's changed model: ``"uploadFirst"`` (upload the queue under the store's
        model first), ``"rebuild"`` (keep the queue and the error archive) or ``"archiveRefused"``
        (archive the queued requests the new model refuses as kind ``"modelChanged"``); then
        downloads in full.

        Returns:
            ``{"check", "archived", "adopted", "uploaded", "downloads"}``.
        """
        return self._json_object(_capi.ood_adopt_service_model, _capi.encode(choice, "choice"))

    def discard(self, request_id: Optional[int] = None, *, all: bool = False) -> int:
        """Discards one archived request (its ``id`` from :meth:`error_archive`), or every one
        with ``all=True``, with the requests that build on it: the later requests on the same
        entity, archived or still queued. Without an id nor ``all=True`` it raises: dropping the
        whole archive is never a default.

        When it was the entity's earliest request, the entity gets back the values the service
        last sent, as after :meth:`undo`: an entity created offline leaves the store. An entity
        with no archived request left is no longer marked in error.

        Returns:
            How many requests were dropped (archived and queued).
        Raises:
            NotFoundError: the archive has no request ``request_id``.
            TypeError: neither ``request_id`` nor ``all=True``, or both.
            ValueError: ``request_id`` is not a non-negative int.
            MisuseError: the store has no file.
            BusyError: called from a callback of this store.
        """
        if not isinstance(all, bool):
            raise TypeError("all must be a bool")
        if all and request_id is not None:
            raise TypeError("Store.discard takes a request id or all=True, not both")
        if not all and request_id is None:
            raise TypeError("Store.discard needs the id of an archived request (from error_archive()), "
                            "or all=True to discard every archived request")
        raw_id = -1 if all else _archive_id(request_id)
        deleted = c_long()
        handle = self._begin()
        try:
            _capi.ood_error_archive_delete(handle, raw_id, byref(deleted))
        finally:
            self._end()
        return deleted.value

    def delete_archived(self, request_id: Optional[int] = None, *, all: bool = False) -> int:
        """The former name of :meth:`discard`, which it is (an id, or ``all=True``)."""
        return self.discard(request_id, all=all)

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
        request_id = _archive_id(request_id)
        raw_body = self._body(body)
        requeued = c_long()
        handle = self._begin()
        try:
            _capi.ood_error_archive_requeue(handle, request_id, raw_body, byref(requeued))
        finally:
            self._end()
        return requeued.value


def _archive_id(request_id: Optional[int]) -> int:
    """An archived request's id for the C library, checked."""
    if isinstance(request_id, bool) or not isinstance(request_id, int) or request_id < 0:
        raise ValueError("request_id must be a non-negative int (an id from error_archive())")
    return request_id
