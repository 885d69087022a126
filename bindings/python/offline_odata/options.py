"""How a store is opened: :class:`Mode` and :class:`Options`, turned into an ``ood_options`` handle.

The keyword arguments of :meth:`offline_odata.Store.open` are the fields of :class:`Options`.
Values are checked here for their Python type (a clear ``TypeError``/``ValueError``) and by the
library for their meaning (a :class:`~offline_odata.MisuseError` naming what is wrong).
"""
import enum
import os
from contextlib import contextmanager
from ctypes import byref, c_void_p
from dataclasses import dataclass, field
from typing import Iterator, Mapping, Optional, Sequence, Tuple, TypedDict, Union

from . import _capi

PathLike = Union[str, "os.PathLike[str]"]

#: Defaults of the library for the connect and whole-request timeouts, in seconds.
DEFAULT_CONNECT_TIMEOUT = 15.0
DEFAULT_REQUEST_TIMEOUT = 300.0


class Mode(enum.IntEnum):
    """Which store answers requests (``ood_mode``)."""

    MIXED = 0
    """Collections covered by a defining request offline; the rest, and function imports, online."""
    ONLINE = 1
    """Every request goes to the service."""
    OFFLINE = 2
    """Every request goes to the offline store."""


def _pairs(value: Union[Mapping[str, str], Sequence[Tuple[str, str]], None], what: str) -> Tuple[Tuple[str, str], ...]:
    if value is None:
        return ()
    items = value.items() if isinstance(value, Mapping) else value
    pairs = []
    for item in items:
        if not (isinstance(item, tuple) and len(item) == 2):
            raise TypeError(f"{what} must be a mapping or a sequence of (name, value) pairs")
        pairs.append((item[0], item[1]))
    return tuple(pairs)


def _indexes(value: object) -> Tuple[Tuple[str, str], ...]:
    """``indexes`` as (entity set, "Prop1,Prop2") pairs for ``ood_options_add_index``."""
    if value is None:
        return ()
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError("indexes must be a sequence of 'EntitySet:Prop1,Prop2' texts or (entity_set, properties) pairs")
    pairs = []
    for item in value:
        if isinstance(item, str):
            entity_set, colon, properties = item.partition(":")
            if not colon:
                raise ValueError(f"an index is written 'EntitySet:Prop1,Prop2', not {item!r}")
            pairs.append((entity_set, properties))
        elif isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str):
            names = item[1]
            if isinstance(names, str) or not isinstance(names, Sequence) or not all(isinstance(n, str) for n in names):
                raise TypeError("an index's properties must be a sequence of str")
            pairs.append((item[0], ",".join(names)))
        else:
            raise TypeError("each index must be 'EntitySet:Prop1,Prop2' or an (entity_set, properties) pair")
    return tuple(pairs)


# The limits of ``ood_options_set_limit``, by option name (the values of ``ood_limit``).
_LIMITS = (
    ("max_response_size", 1),
    ("max_pages", 2),
    ("max_metadata_size", 3),
    ("max_message_length", 4),
    ("max_request_length", 5),
    ("max_request_depth", 6),
    ("max_expression_operators", 7),
    ("max_value_size", 8),
)


@dataclass
class Options:
    """The settings of a store (``ood_options``); every field is optional.

    Attributes:
        path: the store file; without one the store works online only.
        service_root: the OData service root URL; without one a store file's own is used. A new
            file keeps it; one that differs from the file's is used while the store is open and
            not saved in the file, unless ``save_service_root`` (delta links of another service
            are never followed: such a download is a full one).
        save_service_root: a ``service_root`` that differs from the file's replaces it in the file
            (its delta links are dropped, so the next download is a full one).
        metadata: the service's ``$metadata`` document, to create a store without asking the service:
            its text, or the path of a file holding it (a ``pathlib.Path``, or a str that names an
            existing file and is not XML).
        defining_requests: name -> URL of each read whose results the offline store holds.
        stream_requests: name -> URL of defining requests whose downloads also fetch the streams of
            their media entities, kept as files beside the store (docs/MEDIA.md).
        user: the user the store is opened for (docs/SHARED-DEVICE.md): a store bound to another
            user, or to one while this is None, raises OtherUserError; a store bound to nobody is
            bound to this user. Hand a store over with :func:`offline_odata.users.hand_over`.
        max_stream_size, max_stream_folder_size: the largest stream, and the most bytes all
            streams may take (defaults 1 GiB and 8 GiB); a download past either fails, nothing of
            that stream left on disk.
        indexes: indexes the store file should have, made when it opens if it lacks them (indexes
            made before stay): each ``"EntitySet:Prop1,Prop2"`` or ``(entity_set, ["Prop1", "Prop2"])``;
            reads that filter or order on them use them, :meth:`~offline_odata.Store.status` lists them.
            A set or property the model lacks fails the open with MisuseError.
        mode: :class:`Mode` (mixed by default).
        basic_auth: ``(user, password)`` for the service.
        bearer_token: a bearer token for the service.
        headers: headers sent with every request to the service.
        cookies: cookies sent with every request to the service.
        connect_timeout, request_timeout: seconds (library defaults 15 and 300).
        verify_tls: verify the service's certificate and host name (default True).
        ca_file, ca_path: CA certificates (PEM file, folder) instead of the system's.
        page_size: entities per page asked of V4 services during downloads (0: the service chooses).
        batch_size: how :meth:`~offline_odata.Store.upload` sends the request queue: one request at a
            time (0, the default), or in OData ``$batch`` requests of at most this many queued requests.
        group_by_transaction: with ``$batch``, queued requests that share a transaction id go in one
            change set, applied or refused together (otherwise each request is its own change set;
            requests on one entity always share one). Needs ``batch_size`` above 0.
        max_response_size: the most bytes one answer of the service may have, counted after
            decompression (library default 256 MiB), also the pages of a whole online read
            together; a larger one fails with NetworkError.
        max_pages: the most pages one download of a defining request, or one whole online read,
            follows (default 1,000,000).
        max_metadata_size: the most bytes of a ``$metadata`` document, fetched or given (default
            64 MiB); a larger one fails with MetadataError before it is parsed.
        max_message_length: the most characters of a service's error message kept in errors and
            the error archive (default 1,000).
        max_request_length: the most bytes of a read's URL (default 1 MiB); SyntaxError beyond.
        max_request_depth, max_expression_operators: the most nesting of a read's URL (default
            100) and binary operators in one expression such as a ``$filter`` (default 20,000);
            they can be lowered, not raised (MisuseError).
        max_value_size: the most bytes of one value (a string, a number) in a downloaded page
            (default 16 MiB); a page with a larger one fails the download with NetworkError naming
            the property, and is not kept.
        accept_empty_file: an empty file at ``path`` (0 bytes, or an SQLite database without
            tables) may become the new store. By default a store is made only where no file is, so
            an empty file there is refused with :class:`~offline_odata.NotAStoreError` naming it.
        compact_upload_queue: whether each upload first compacts the request queue (True, the
            default; see :meth:`~offline_odata.Store.compact_queue`) or sends it as queued.

    Header and cookie names and values with CR, LF or NUL (and cookie names with ``=``, ``;`` or
    white space, cookie values with ``;``) are refused with :class:`~offline_odata.MisuseError`
    (NUL with ValueError, as in every text argument).
    """

    path: Optional[PathLike] = None
    service_root: Optional[str] = None
    metadata: Optional[Union[str, PathLike]] = None
    defining_requests: Union[Mapping[str, str], Sequence[Tuple[str, str]], None] = None
    mode: Union[Mode, int] = Mode.MIXED
    basic_auth: Optional[Tuple[str, str]] = None
    bearer_token: Optional[str] = None
    headers: Union[Mapping[str, str], Sequence[Tuple[str, str]], None] = None
    cookies: Union[Mapping[str, str], Sequence[Tuple[str, str]], None] = None
    connect_timeout: Optional[float] = None
    request_timeout: Optional[float] = None
    verify_tls: bool = True
    ca_file: Optional[PathLike] = None
    ca_path: Optional[PathLike] = None
    page_size: Optional[int] = None
    batch_size: int = 0
    group_by_transaction: bool = False
    max_response_size: Optional[int] = None
    max_pages: Optional[int] = None
    max_metadata_size: Optional[int] = None
    max_message_length: Optional[int] = None
    max_request_length: Optional[int] = None
    max_request_depth: Optional[int] = None
    max_expression_operators: Optional[int] = None
    max_value_size: Optional[int] = None
    save_service_root: bool = False
    accept_empty_file: bool = False
    compact_upload_queue: bool = True
    indexes: Optional[Sequence[Union[str, Tuple[str, Sequence[str]]]]] = None
    key: Optional[bytes] = field(default=None, repr=False)
    passphrase: Optional[str] = field(default=None, repr=False)
    stream_requests: Union[Mapping[str, str], Sequence[Tuple[str, str]], None] = None
    max_stream_size: Optional[int] = None
    max_stream_folder_size: Optional[int] = None
    user: Optional[str] = None

    @contextmanager
    def _handle(self) -> Iterator[c_void_p]:
        """A new ``ood_options`` with these settings, released when the block ends."""
        handle = c_void_p()
        _capi.ood_options_new(byref(handle))
        try:
            self._apply(handle)
            yield handle
        finally:
            _capi.ood_options_free(handle)

    def _apply(self, handle: c_void_p) -> None:
        def enc(text: Optional[str], what: str) -> Optional[bytes]:
            if text is None:
                raise TypeError(f"{what} must be a str, not None")
            return _capi.encode(text, what)

        if self.path is not None:
            _capi.ood_options_set_path(handle, enc(os.fspath(self.path), "path"))
        if self.service_root is not None:
            _capi.ood_options_set_service_root(handle, enc(self.service_root, "service_root"))
        if not isinstance(self.save_service_root, bool):
            raise TypeError("save_service_root must be a bool")
        if self.save_service_root:
            _capi.ood_options_set_service_root_saved(handle, 1)
        if self.metadata is not None:
            _capi.ood_options_set_metadata(handle, enc(_metadata_text(self.metadata), "metadata"))
        for name, url in _pairs(self.defining_requests, "defining_requests"):
            _capi.ood_options_add_defining_request(handle, enc(name, "a defining request's name"),
                                                   enc(url, "a defining request's URL"))
        for entity_set, properties in _indexes(self.indexes):
            _capi.ood_options_add_index(handle, enc(entity_set, "an index's entity set"),
                                        enc(properties, "an index's properties"))
        if isinstance(self.mode, bool) or not isinstance(self.mode, int):
            raise TypeError(f"mode must be an offline_odata.Mode, not {type(self.mode).__name__}")
        _capi.ood_options_set_mode(handle, int(self.mode))
        if self.basic_auth is not None:
            if not (isinstance(self.basic_auth, tuple) and len(self.basic_auth) == 2):
                raise TypeError("basic_auth must be a (user, password) tuple")
            user, password = self.basic_auth
            _capi.ood_options_set_basic_auth(handle, enc(user, "user"), enc(password, "password"))
        if self.bearer_token is not None:
            _capi.ood_options_set_bearer_token(handle, enc(self.bearer_token, "bearer_token"))
        for name, value in _pairs(self.headers, "headers"):
            _capi.ood_options_add_header(handle, enc(name, "a header's name"), enc(value, "a header's value"))
        for name, value in _pairs(self.cookies, "cookies"):
            _capi.ood_options_add_cookie(handle, enc(name, "a cookie's name"), enc(value, "a cookie's value"))
        if self.connect_timeout is not None or self.request_timeout is not None:
            connect = DEFAULT_CONNECT_TIMEOUT if self.connect_timeout is None else self.connect_timeout
            request = DEFAULT_REQUEST_TIMEOUT if self.request_timeout is None else self.request_timeout
            _capi.ood_options_set_timeouts(handle, float(connect), float(request))
        if not self.verify_tls or self.ca_file is not None or self.ca_path is not None:
            ca_file = None if self.ca_file is None else enc(os.fspath(self.ca_file), "ca_file")
            ca_path = None if self.ca_path is None else enc(os.fspath(self.ca_path), "ca_path")
            _capi.ood_options_set_tls(handle, 1 if self.verify_tls else 0, ca_file, ca_path)
        if self.page_size is not None:
            if isinstance(self.page_size, bool) or not isinstance(self.page_size, int):
                raise TypeError("page_size must be an int")
            _capi.ood_options_set_page_size(handle, self.page_size)
        for name, limit in _LIMITS:
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int")
            # 0 keeps the library's default; the library refuses a negative limit (MisuseError).
            _capi.ood_options_set_limit(handle, limit, value)
        if isinstance(self.batch_size, bool) or not isinstance(self.batch_size, int):
            raise TypeError("batch_size must be an int")
        if not isinstance(self.group_by_transaction, bool):
            raise TypeError("group_by_transaction must be a bool")
        if self.batch_size or self.group_by_transaction:
            # The library refuses a negative size, and grouping without $batch (MisuseError).
            _capi.ood_options_set_batch(handle, self.batch_size, 1 if self.group_by_transaction else 0)
        if not isinstance(self.accept_empty_file, bool):
            raise TypeError("accept_empty_file must be a bool")
        if self.accept_empty_file:
            _capi.ood_options_set_accept_empty_file(handle, 1)
        if not isinstance(self.compact_upload_queue, bool):
            raise TypeError("compact_upload_queue must be a bool")
        if not self.compact_upload_queue:
            _capi.ood_options_set_queue_compaction(handle, 0)
        _set_key(handle, self.key, self.passphrase)
        # Media streams (docs/MEDIA.md): defining requests that also download their streams.
        for name, url in _pairs(self.stream_requests, "stream_requests"):
            _capi.ood_options_add_defining_request_streams(handle, enc(name, "a defining request's name"),
                                                           enc(url, "a defining request's URL"))
        if self.max_stream_size is not None or self.max_stream_folder_size is not None:
            for name in ("max_stream_size", "max_stream_folder_size"):
                value = getattr(self, name)
                if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                    raise TypeError(f"{name} must be an int")
            _capi.ood_options_set_stream_limits(handle, self.max_stream_size or 0, self.max_stream_folder_size or 0)
        # A device that changes hands (docs/SHARED-DEVICE.md): the user the store is opened for.
        if self.user is not None:
            _capi.ood_options_set_user(handle, enc(self.user, "user"))


def _set_key(handle: c_void_p, key: Optional[bytes], passphrase: Optional[str]) -> None:
    """The store's raw key (32 bytes) or passphrase on an ``ood_options`` (docs/ENCRYPTION.md)."""
    if key is not None and passphrase is not None:
        raise TypeError("give key or passphrase, not both")
    if key is not None:
        if not isinstance(key, (bytes, bytearray)):
            raise TypeError("key must be bytes (32 of them)")
        raw = bytes(key)
        _capi.ood_options_set_key(handle, raw, len(raw))
    elif passphrase is not None:
        if not isinstance(passphrase, str):
            raise TypeError("passphrase must be a str")
        _capi.ood_options_set_passphrase(handle, _capi.encode(passphrase, "passphrase"))


@contextmanager
def key_options(key: Optional[bytes], passphrase: Optional[str]) -> Iterator[Optional[c_void_p]]:
    """An ``ood_options`` holding only a key, or None for no key (for ood_store_rekey)."""
    if key is None and passphrase is None:
        yield None
        return
    handle = c_void_p()
    _capi.ood_options_new(byref(handle))
    try:
        _set_key(handle, key, passphrase)
        yield handle
    finally:
        _capi.ood_options_free(handle)


class StoreOptions(TypedDict, total=False):
    """The keyword arguments of :class:`~offline_odata.Store`: every field of :class:`Options` but
    ``path``. This TypedDict makes a type checker refuse a misspelt option; a test keeps it in step
    with :class:`Options`."""

    service_root: str
    mode: Union[Mode, int]
    save_service_root: bool
    metadata: str
    defining_requests: Union[Mapping[str, str], Sequence[Tuple[str, str]]]
    indexes: Sequence[Union[str, Tuple[str, Sequence[str]]]]
    stream_requests: Union[Mapping[str, str], Sequence[Tuple[str, str]]]
    max_stream_size: int
    max_stream_folder_size: int
    basic_auth: Tuple[str, str]
    bearer_token: str
    headers: Union[Mapping[str, str], Sequence[Tuple[str, str]]]
    cookies: Union[Mapping[str, str], Sequence[Tuple[str, str]]]
    connect_timeout: float
    request_timeout: float
    verify_tls: bool
    ca_file: PathLike
    ca_path: PathLike
    page_size: int
    batch_size: int
    group_by_transaction: bool
    max_response_size: int
    max_pages: int
    max_metadata_size: int
    max_message_length: int
    max_request_length: int
    max_request_depth: int
    max_expression_operators: int
    max_value_size: int
    accept_empty_file: bool
    compact_upload_queue: bool
    key: bytes
    passphrase: str
    user: str


def _metadata_text(metadata: Union[str, PathLike]) -> str:
    """The ``$metadata`` document ``metadata`` gives: its text, or read from the file it names (a
    path object, or a str that is not XML and names a file), so that a path is not taken for a
    document (which libxml2 answers with "Document is empty")."""
    if isinstance(metadata, str) and (metadata.lstrip("\ufeff \t\r\n").startswith("<") or not os.path.isfile(metadata)):
        return metadata
    try:
        with open(os.fspath(metadata), encoding="utf-8") as document:
            return document.read()
    except OSError as error:
        raise ValueError(f"metadata: cannot read the $metadata file {os.fspath(metadata)!r}: {error.strerror}") from None
