"""Finds and loads libofflineodata.so.

Order: ``$OFFLINE_ODATA_LIBRARY`` (an explicit path), then the copy installed inside this package,
then the system's (``ctypes.util.find_library``, for an installation under a system prefix).
"""
import ctypes
import ctypes.util
from typing import List
import os

LIBRARY_NAME = "libofflineodata.so"
ENVIRONMENT_VARIABLE = "OFFLINE_ODATA_LIBRARY"


def library_candidates() -> List[str]:
    """The paths tried, in order (for error messages and tests)."""
    candidates: List[str] = []
    override = os.environ.get(ENVIRONMENT_VARIABLE)
    if override:
        candidates.append(override)
    candidates.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), LIBRARY_NAME))
    system = ctypes.util.find_library("offlineodata")
    if system:
        candidates.append(system)
    return candidates


def load_library() -> ctypes.CDLL:
    """Loads the first candidate that exists; raises ImportError naming every path tried."""
    override = os.environ.get(ENVIRONMENT_VARIABLE)
    if override and not os.path.exists(override):
        raise ImportError(f"{ENVIRONMENT_VARIABLE} names no file: {override}")
    tried = []
    for path in library_candidates():
        if os.path.sep in path and not os.path.exists(path):
            tried.append(path)
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as error:
            tried.append(f"{path} ({error})")
    raise ImportError("cannot find libofflineodata.so; tried: " + "; ".join(tried)
                      + f". Install the package with pip, or set {ENVIRONMENT_VARIABLE}.")
