"""A device that changes hands (docs/SHARED-DEVICE.md): who holds a store, and handing it over.

A store opened with ``Store(path, user="alice", ...)`` is bound to alice; opening it for another
user, or for none, raises :class:`~offline_odata.errors.OtherUserError` until the app hands it
over with :func:`hand_over`, choosing what becomes of the previous user's pending changes.
"""
from __future__ import annotations

import json
import os
from ctypes import byref, c_void_p
from typing import Any, Dict, Optional, Union

from . import _capi
from .options import Options, key_options

PathLike = Union[str, "os.PathLike[str]"]

#: The three choices at hand-over.
CHOICES = ("upload-first", "discard", "keep-apart")


def _path_text(path: PathLike) -> bytes:
    text = os.fspath(path)
    if not isinstance(text, str):
        raise TypeError("path must be a str or os.PathLike[str]")
    return _capi.encode(text, "path")


def hand_over(path: PathLike, new_user: str, choice: str, *, previous: Optional[Options] = None,
              new_key: Optional[bytes] = None, new_passphrase: Optional[str] = None,
              kept_path: Optional[PathLike] = None) -> Dict[str, Any]:
    """Gives the closed store at ``path`` to ``new_user`` (``ood_store_hand_over``).

    ``choice``: ``"upload-first"`` (the previous user's queue is uploaded with *their*
    credentials, the ``basic_auth``/``bearer_token``/``headers`` of ``previous``, for this one
    upload), ``"discard"`` (each queued or archived request recorded as a discarded change,
    ``conflicts.discarded_changes``, policy ``handOver:<user>``, until cleared) or
    ``"keep-apart"`` (the previous user's store renamed whole to ``kept_path``, by default
    ``<path>.<user>``, and a new empty store made at ``path``). ``previous`` also carries the
    store's key now (``key``/``passphrase``); ``new_key``/``new_passphrase`` the new user's.

    Returns ``{"previousUser", "newUser", "uploaded", "discarded", "keptAt"}``.
    """
    if choice not in CHOICES:
        raise ValueError(f"choice must be one of {', '.join(CHOICES)}, not {choice!r}")
    out = c_void_p()
    kept = _path_text(kept_path) if kept_path is not None else None
    with key_options(new_key, new_passphrase) as nxt:
        if previous is None:
            _capi.ood_store_hand_over(_path_text(path), None, _capi.encode(new_user, "new_user"), nxt,
                                      choice.encode(), kept, byref(out))
        else:
            with previous._handle() as handle:
                _capi.ood_store_hand_over(_path_text(path), handle, _capi.encode(new_user, "new_user"), nxt,
                                          choice.encode(), kept, byref(out))
    outcome: Dict[str, Any] = json.loads(_capi.take_string(out))
    return outcome


def store_user(path: PathLike, *, key: Optional[bytes] = None, passphrase: Optional[str] = None) -> Optional[str]:
    """The user the closed store at ``path`` is bound to; None when it belongs to nobody."""
    out = c_void_p()
    with key_options(key, passphrase) as handle:
        _capi.ood_store_user(_path_text(path), handle, byref(out))
    if not out.value:
        return None
    return _capi.take_string(out)
