"""A tiny HTTP server on another port of 127.0.0.1 that records every request it receives, with its
headers: the origin a service's link or redirect must never lead the engine to (issues 20, 21).
Tests assert that `received` stays empty, so that no credential, header or cookie went there."""
from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class OtherOrigin:
    """Answers every GET and POST with an empty V4 collection, after recording it."""

    def __init__(self) -> None:
        received = self.received = []

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format, *args):  # quiet
                pass

            def do_GET(self):
                received.append({"path": self.path, "headers": dict(self.headers)})
                body = b'{"value":[]}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_POST = do_GET

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
