"""Shared fixtures of the binding's tests: the header's enums and functions, and the real backends.

The backends are the flight sample services of ``Tests/backends/backends.py`` (odatapy for V4,
mock-sap for V2, CSRF on), started once per test session and reset to their seed before each test.
"""
import importlib.util
import os
import re
import sys
from typing import Dict, Iterator, List, Tuple

import pytest

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
HEADER = os.path.join(REPOSITORY, "include", "offline_odata.h")
BACKENDS = os.path.join(REPOSITORY, "Tests", "backends", "backends.py")
FLIGHT = os.path.join(REPOSITORY, "Examples", "FlightSample")

#: The defining request of most tests, and the filter the offline store answers within.
US_AGENCIES = "TravelagencyCollection?$filter=country eq 'US'"


def _header_text() -> str:
    with open(HEADER, encoding="utf-8") as f:
        return f.read()


def header_statuses() -> List[Tuple[str, int]]:
    """The (name, value) pairs of the ood_status enum, read from the header."""
    body = re.search(r"typedef enum ood_status \{(.*?)\} ood_status;", _header_text(), re.S).group(1)
    return [(name, int(value)) for name, value in re.findall(r"\b(OOD_[A-Z_]+) = (\d+)", body)]


def header_enum(name: str) -> Dict[str, int]:
    """The members of a ``typedef enum NAME {...} NAME;`` of the header."""
    body = re.search(r"typedef enum %s \{(.*?)\} %s;" % (name, name), _header_text(), re.S).group(1)
    return {member: int(value) for member, value in re.findall(r"\b(OOD_[A-Z_]+) = (\d+)", body)}


def header_functions() -> Dict[str, int]:
    """Every function the header declares -> its number of parameters."""
    text = re.sub(r"/\*.*?\*/", "", _header_text(), flags=re.S)
    functions = {}
    for name, parameters in re.findall(r"OOD_API\s+[\w\s\*]+?\b(ood_\w+)\s*\(([^)]*)\)\s*;", text):
        parameters = " ".join(parameters.split())
        functions[name] = 0 if parameters in ("void", "") else parameters.count(",") + 1
    return functions


def _load(name: str, path: str):
    """Imports a module of Tests/backends by path (that folder is not a package)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


backends = _load("ood_test_backends", BACKENDS)
recording_proxy = _load("ood_test_recording_proxy", os.path.join(REPOSITORY, "Tests", "backends", "recording_proxy.py"))


@pytest.fixture
def store_path(tmp_path):
    return str(tmp_path / "test.store")


@pytest.fixture(scope="session")
def v4_server() -> Iterator["backends.Backend"]:
    server = backends.start_v4(page_size=10, data="small")
    yield server
    server.stop()


@pytest.fixture(scope="session")
def v2_server() -> Iterator["backends.Backend"]:
    server = backends.start_v2(csrf=True, data="small")
    yield server
    server.stop()


@pytest.fixture
def v4(v4_server):
    v4_server.reset()
    return v4_server


@pytest.fixture
def v2(v2_server):
    v2_server.reset()
    return v2_server


@pytest.fixture(params=["v4", "v2"])
def backend(request):
    """Each backend in turn, reset to its seed; ``.kind`` says which."""
    server = request.getfixturevalue(request.param + "_server")
    server.reset()
    return server


def metadata(kind: str) -> str:
    """The flight sample's $metadata document for "v4" or "v2"."""
    with open(os.path.join(FLIGHT, f"metadata-{kind}.xml"), encoding="utf-8") as f:
        return f.read()


@pytest.fixture
def proxy(v4):
    """A recording proxy (Tests/backends/recording_proxy.py) in front of the V4 backend."""
    started = recording_proxy.RecordingProxy(v4.service_root)
    yield started
    started.stop()
