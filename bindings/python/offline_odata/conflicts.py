"""Conflict policies and the app's resolver (docs/CONFLICTS.md), over the C functions.

    from offline_odata import conflicts
    conflicts.set_policy(store, "serverWins")                       # the store's default, kept in its file
    conflicts.set_policy(store, "mergeChangedFields", entity_set="TravelagencyCollection")
    outcome = conflicts.upload(store, resolver=lambda versions: {"name": "merged"})

A resolver receives the three versions as a dict ({"entitySet", "url", "method", "httpStatus",
"policy", "original", "local", "served", "properties"}) and answers a policy name ("archive",
"serverWins", "clientWins", "mergeChangedFields") or a dict: the merged body to send. An exception
in it archives the conflict (nothing is lost).
"""
from __future__ import annotations

import json
from ctypes import byref, c_long, c_void_p, memmove
from typing import Any, Callable, Dict, List, Optional, Union

from . import _capi

#: What a resolver's policy names answer in C (``ood_conflict_answer``).
_ANSWERS = {"archive": 0, "serverWins": 1, "clientWins": 2, "mergeChangedFields": 3}
_MERGED_BODY = 4

Resolver = Callable[[Dict[str, Any]], Union[str, Dict[str, Any]]]


def set_policy(store: Any, policy: str, entity_set: Optional[str] = None) -> None:
    """Keeps ``policy`` in the store file as its default, or ``entity_set``'s."""
    _capi.ood_store_set_conflict_policy(store._handle, entity_set.encode() if entity_set else None, policy.encode())


def policies(store: Any) -> Dict[str, Any]:
    """``{"default": POLICY, "entitySets": {SET: POLICY}}``."""
    out = c_void_p()
    _capi.ood_store_conflict_policies(store._handle, byref(out))
    answer: Dict[str, Any] = json.loads(_capi.take_string(out))
    return answer


def upload(store: Any, policy: Optional[str] = None, resolver: Optional[Resolver] = None) -> Dict[str, int]:
    """Uploads with ``policy`` for every set (None: the store's) and ``resolver`` deciding each
    conflict; gives ``{"sent", "archived", "inDoubt", "discarded", "compacted"}``."""

    def decide(versions_json: bytes, merged_body: int, capacity: int, payload: Any) -> int:
        try:
            answer = resolver(json.loads(versions_json)) if resolver else "archive"
            if isinstance(answer, dict):
                body = json.dumps(answer).encode() + b"\0"
                if len(body) > capacity:
                    return _ANSWERS["archive"]
                memmove(merged_body, body, len(body))
                return _MERGED_BODY
            return _ANSWERS.get(str(answer), _ANSWERS["archive"])
        except Exception:  # noqa: BLE001 - a failing resolver archives the conflict
            return _ANSWERS["archive"]

    callback = _capi.ood_conflict_resolver(decide) if resolver else _capi.ood_conflict_resolver()
    out = c_void_p()
    _capi.ood_upload_resolving(store._handle, policy.encode() if policy else None, callback, None, byref(out))
    outcome: Dict[str, int] = json.loads(_capi.take_string(out))
    return outcome


def discarded_changes(store: Any) -> List[Dict[str, Any]]:
    """The local changes a conflict policy discarded, oldest first, each with the three versions."""
    out = c_void_p()
    _capi.ood_discarded_changes(store._handle, byref(out))
    changes: List[Dict[str, Any]] = json.loads(_capi.take_string(out))
    return changes


def set_alternate_key(store: Any, entity_set: str, properties: List[str]) -> None:
    """Declares ``properties`` unique per entity in ``entity_set`` (kept in the store file): a
    create whose key the service assigns and whose answer was lost is read back by them instead of
    waiting for a decision. An empty list forgets the declaration."""
    _capi.ood_store_set_alternate_key(store._handle, entity_set.encode(), ",".join(properties).encode())


def alternate_keys(store: Any) -> Dict[str, List[List[str]]]:
    """Each entity set's alternate keys, the app's before the model's: ``{SET: [[PROPERTY, ...]]}``."""
    out = c_void_p()
    _capi.ood_store_alternate_keys(store._handle, byref(out))
    keys: Dict[str, List[List[str]]] = json.loads(_capi.take_string(out))
    return keys


def clear_discarded_changes(store: Any) -> int:
    """Forgets the record of discarded changes; how many."""
    cleared = c_long()
    _capi.ood_discarded_changes_clear(store._handle, byref(cleared))
    return cleared.value
