"""Turns a C status into a Python exception, reading the per-thread message right after the call."""
from . import _capi
from .errors import error_for_status


def check(status: int) -> None:
    """Raises the mapped exception unless ``status`` is OOD_OK (0)."""
    if status == 0:
        return
    raw = _capi.ood_error_message()
    message = raw.decode("utf-8", "replace") if raw else "unknown error"
    offset = _capi.ood_error_offset()
    raise error_for_status(status, message, offset if offset >= 0 else None)
