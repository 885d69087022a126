"""A forwarding HTTP proxy in front of a test backend, run on a thread of the test process, that
records what reached the service: the tool's, the bindings' and the quickstarts' tests use it to
see headers, credentials and request counts on the wire.

Each request is forwarded unchanged (Host header included, so the backend builds its links on the
proxy's address and later pages come through the proxy too) to the upstream origin, and recorded
in ``requests`` as a :class:`Recorded`, with its answer's body once that came back (before the
client gets it). A request whose path contains a key of ``delays`` is held that many seconds
before it is forwarded (for cancellation tests).
"""
from __future__ import annotations

import http.client
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import NamedTuple
from urllib.parse import urlsplit

#: Headers that describe one hop, not the message.
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


class Recorded(NamedTuple):
    """One request that went through the proxy."""

    method: str
    path: str
    headers: http.client.HTTPMessage
    body: bytes
    answer: bytes = b""
    """The body of the answer, as the proxy sent it on (empty until it came back)."""

    @property
    def authorization(self) -> str | None:
        return self.headers.get("Authorization")


class RecordingProxy:
    def __init__(self, upstream_service_root: str):
        upstream = urlsplit(upstream_service_root)
        self.requests: list[Recorded] = []
        self.delays: dict[str, float] = {}
        lock = threading.Lock()
        #: Notified at each request received, for :meth:`wait_for`.
        self.arrived = threading.Condition(lock)
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def forward(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                recorded = Recorded(self.command, self.path, self.headers, body)
                with lock:
                    owner.requests.append(recorded)
                    delays = list(owner.delays.items())
                    owner.arrived.notify_all()
                for marker, seconds in delays:
                    if marker in self.path:
                        time.sleep(seconds)
                headers = {name: value for name, value in self.headers.items() if name.lower() not in HOP_BY_HOP}
                connection = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
                try:
                    connection.request(self.command, self.path, body=body or None, headers=headers)
                    answer = connection.getresponse()
                    content = answer.read()
                    with lock:  # found by identity: a test may have cleared the list meanwhile
                        for index, entry in enumerate(owner.requests):
                            if entry is recorded:
                                owner.requests[index] = recorded._replace(answer=content)
                                break
                        owner.arrived.notify_all()  # wait_for may be waiting for this answer
                    self.send_response(answer.status, answer.reason)
                    for name, value in answer.getheaders():
                        if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                            self.send_header(name, value)
                    self.send_header("Content-Length", str(len(content)))
                    self.end_headers()
                    self.wfile.write(content)
                finally:
                    connection.close()

            do_GET = do_POST = do_PUT = do_PATCH = do_MERGE = do_DELETE = do_HEAD = forward

            def log_message(self, *arguments):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        # A client that gave up (a cancelled request) is no error of the proxy's.
        self.server.handle_error = lambda request, address: None
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        #: The upstream service root, reached through this proxy.
        self.root = self.origin + upstream.path
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def wait_for(self, predicate, timeout: float) -> bool:
        """Waits up to ``timeout`` seconds until ``predicate(requests)`` holds, woken by each
        request received and each answer recorded (so it returns as soon as it does); false when
        the time passed first."""
        with self.arrived:
            return self.arrived.wait_for(lambda: predicate(self.requests), timeout)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
