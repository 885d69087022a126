"""Shared fixtures of the binding's tests: the header's enums and functions, and the real backends.

The backends are the flight sample services of ``Tests/backends/backends.py`` (odatapy for V4,
mock-sap for V2, CSRF on), started once per test session and reset to their seed before each test.
"""
import http.client
import http.server
import importlib.util
import os
import re
import sys
import threading
import time
import urllib.parse
from typing import Dict, Iterator, List, NamedTuple, Tuple

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


def _load_backends():
    spec = importlib.util.spec_from_file_location("ood_test_backends", BACKENDS)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


backends = _load_backends()


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


class Seen(NamedTuple):
    """One request that went through a :class:`RecordingProxy`."""

    method: str
    path: str
    headers: "http.client.HTTPMessage"
    body: bytes


class RecordingProxy:
    """A plain HTTP proxy in front of a backend that records each request (method, path, headers, body).

    ``seen`` holds each request's headers as a dict; ``log`` the whole :class:`Seen` records. A
    request whose path contains a key of ``delays`` is held that many seconds before it is forwarded.
    """

    _HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host", "date", "server"}

    def __init__(self, backend):
        self.seen: List[Dict[str, str]] = []
        self.log: List[Seen] = []
        self.delays: Dict[str, float] = {}
        target = urllib.parse.urlsplit(backend.service_root)
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def forward(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                proxy.seen.append(dict(self.headers))
                proxy.log.append(Seen(self.command, self.path, self.headers, body))
                for marker, seconds in proxy.delays.items():
                    if marker in self.path:
                        time.sleep(seconds)
                connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
                try:
                    connection.request(self.command, self.path, body or None, headers={
                        k: v for k, v in self.headers.items() if k.lower() not in RecordingProxy._HOP_BY_HOP})
                    answer = connection.getresponse()
                    content = answer.read()
                    self.send_response(answer.status)
                    for name, value in answer.getheaders():
                        if name.lower() not in RecordingProxy._HOP_BY_HOP:
                            self.send_header(name, value)
                    self.send_header("Content-Length", str(len(content)))
                    self.end_headers()
                    self.wfile.write(content)
                finally:
                    connection.close()

            do_GET = do_POST = do_PUT = do_PATCH = do_MERGE = do_DELETE = forward  # noqa: N815

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.handle_error = lambda request, address: None  # a client that gave up (cancelled) is no error
        self.root = f"http://127.0.0.1:{self.server.server_address[1]}{target.path}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def proxy(v4):
    """A :class:`RecordingProxy` in front of the V4 backend."""
    started = RecordingProxy(v4)
    yield started
    started.stop()
