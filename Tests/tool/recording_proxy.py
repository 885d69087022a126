"""A forwarding HTTP proxy, run on a thread of the test process, that records what the tool sent.

Each request is forwarded unchanged (Host header included, so the backend builds its links on the
proxy's address and later pages come through the proxy too) to the upstream origin, and its method,
path and Authorization header are kept in `requests`.
"""
from __future__ import annotations

import http.client
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

#: Headers that describe one hop, not the message.
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


class RecordingProxy:
    def __init__(self, upstream_origin: str):
        upstream = urlsplit(upstream_origin)
        self.requests: list[dict] = []
        lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def forward(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                with lock:
                    owner.requests.append({"method": self.command, "path": self.path,
                                           "authorization": self.headers.get("Authorization")})
                headers = {name: value for name, value in self.headers.items() if name.lower() not in HOP_BY_HOP}
                connection = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
                try:
                    connection.request(self.command, self.path, body=body, headers=headers)
                    answer = connection.getresponse()
                    content = answer.read()
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
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def service_root(self, upstream_service_root: str) -> str:
        """The upstream service root, reached through this proxy."""
        return self.origin + urlsplit(upstream_service_root).path

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
