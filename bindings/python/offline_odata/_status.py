"""Turns a C status into a Python exception, reading the per-thread message right after the call.

Most functions raise by themselves (their ``errcheck``, see :mod:`._capi`); :func:`check` serves
statuses that arrive another way, such as the status of an asynchronous completion.
"""
from . import _capi


def check(status: int) -> None:
    """Raises the mapped exception unless ``status`` is OOD_OK (0)."""
    _capi.errcheck_status(status, None, ())
