"""A slow HTTPS link in front of a local test backend, for the upload benchmark over a mobile-like
link (issue 38, target 6).

Two stages, both on 127.0.0.1, in threads of the process that starts them:

1. The link: a TCP proxy that delays every byte by half the round trip in each direction, and
   holds a new connection's first byte back by one more round trip, the cost of the TCP
   handshake that a real link would add before the client could send anything. A request on a
   kept-alive connection thus costs one round trip, a new connection one more, and the TLS
   handshake whatever round trips it takes (one for TLS 1.3, which both sides here speak).
2. The HTTPS front, behind the link: terminates TLS with a self-signed certificate made at start
   (Python's `cryptography`, in a temporary folder), keeps connections alive (HTTP/1.1), and
   forwards each request to the backend over a kept-alive plain-HTTP connection of its own. It
   records each request (method, target, headers, body) for a client that replays them, sums the
   backend's time (from forwarding a request to having its whole answer) and counts the TLS
   handshakes and the requests per connection.

Bodies and the Location header have the backend's `http://` links turned into `https://` ones on
the front's address, so a client following them stays on the link. (Not multipart answers: the
parts' own lengths would change; the benchmark sends no `$batch`.)
"""
from __future__ import annotations

import asyncio
import datetime
import http.client
import socket
import ssl
import tempfile
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
              "content-length"}


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A key and a certificate for 127.0.0.1, valid for a day, written into `folder`."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    import ipaddress

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
                   .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                                  critical=False)
                   .sign(key, hashes.SHA256()))
    key_path, certificate_path = folder / "key.pem", folder / "cert.pem"
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    certificate_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    return key_path, certificate_path


class Front:
    """The HTTPS front (stage 2); `.port` is where the link connects."""

    def __init__(self, upstream: str, certificate: Path, key: Path) -> None:
        self.upstream = urllib.parse.urlsplit(upstream)
        self.lock = threading.Lock()
        self.recording: list[dict] | None = None
        self.server_seconds = 0.0
        self.requests = 0
        self.handshakes = 0
        self.public_origin = ""  # set by SlowLink: the link's https origin
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certificate, key)
        front = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def setup(self) -> None:
                # No Nagle delay: the headers and the body are two writes, and the link's side may
                # hold its ACK of the first back for 40 ms.
                self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                # The handshake here, in the connection's own thread (not in the accepting one).
                self.request.do_handshake()
                with front.lock:
                    front.handshakes += 1
                self.upstream_connection: http.client.HTTPConnection | None = None
                super().setup()

            def finish(self) -> None:
                if self.upstream_connection is not None:
                    self.upstream_connection.close()
                super().finish()

            def forward(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length > 0 else b""
                headers = {name: value for name, value in self.headers.items() if name.lower() not in HOP_BY_HOP}
                if body or self.command in ("POST", "PUT", "PATCH", "MERGE"):
                    headers["Content-Length"] = str(len(body))
                with front.lock:
                    if front.recording is not None:
                        front.recording.append({"method": self.command, "target": self.path,
                                                "headers": headers, "body": body.decode("latin-1")})
                start = time.perf_counter()
                status, answer_headers, answer = self.exchange(headers, body)
                with front.lock:
                    front.server_seconds += time.perf_counter() - start
                    front.requests += 1
                self.send_response(status)
                multipart = any(name.lower() == "content-type" and value.lower().startswith("multipart/")
                                for name, value in answer_headers)
                if not multipart:
                    answer = front.secured(answer)
                for name, value in answer_headers:
                    if name.lower() not in HOP_BY_HOP:
                        self.send_header(name, front.secured(value.encode()).decode() if name.lower() == "location" else value)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(answer)

            def exchange(self, headers: dict, body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
                """One request to the backend on this connection's kept-alive upstream connection
                (a new one after a failure: the backend closed an idle one)."""
                for attempt in (1, 2):
                    if self.upstream_connection is None:
                        self.upstream_connection = http.client.HTTPConnection(front.upstream.hostname,
                                                                              front.upstream.port, timeout=600)
                    try:
                        self.upstream_connection.request(self.command, self.path, body=body or None, headers=headers)
                        response = self.upstream_connection.getresponse()
                        return response.status, response.getheaders(), response.read()
                    except (http.client.RemoteDisconnected, ConnectionError):
                        self.upstream_connection.close()
                        self.upstream_connection = None
                        if attempt == 2 or self.command not in ("GET", "HEAD"):
                            raise
                raise AssertionError("unreachable")

            do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_MERGE = do_DELETE = forward

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.socket = context.wrap_socket(self.server.socket, server_side=True, do_handshake_on_connect=False)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def secured(self, data: bytes) -> bytes:
        """The backend's http links on the front's address as https links on the link's."""
        return data.replace(f"http://127.0.0.1:{self.upstream.port}".encode(), self.public_origin.encode())

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Link:
    """The delaying TCP proxy (stage 1), on an event loop in a thread of its own."""

    def __init__(self, target_port: int, round_trip: float) -> None:
        self.target_port = target_port
        self.half = round_trip / 2
        self.round_trip = round_trip
        self.connections = 0
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self.port = 0

        async def start() -> None:
            self.server = await asyncio.start_server(self.connect, "127.0.0.1", 0)
            self.port = self.server.sockets[0].getsockname()[1]
            ready.set()

        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        asyncio.run_coroutine_threadsafe(start(), self.loop)
        ready.wait(10)

    async def connect(self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        opened = time.monotonic()
        try:
            target_reader, target_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            client_writer.close()
            return
        # The TCP handshake's round trip: the client's first byte leaves after it (one round trip
        # after the connect), and arrives half a round trip later.
        try:
            await asyncio.gather(self.pipe(client_reader, target_writer, not_before=opened + self.round_trip + self.half),
                                 self.pipe(target_reader, client_writer, not_before=0.0))
        except asyncio.CancelledError:
            pass  # the link stops

    async def pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, not_before: float) -> None:
        """Copies `reader` to `writer`, each chunk half a round trip after it was read, in order;
        a close travels the same way."""
        queue: asyncio.Queue = asyncio.Queue()

        async def deliver() -> None:
            while True:
                due, chunk = await queue.get()
                wait = max(due, not_before) - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not chunk:
                    try:
                        writer.write_eof() if writer.can_write_eof() else writer.close()
                    except OSError:
                        pass
                    return
                writer.write(chunk)
                try:
                    await writer.drain()
                except OSError:
                    return

        delivery = asyncio.ensure_future(deliver())
        try:
            while True:
                try:
                    chunk = await reader.read(65536)
                except OSError:
                    chunk = b""
                queue.put_nowait((time.monotonic() + self.half, chunk))
                if not chunk:
                    break
            await delivery
        finally:
            writer.close()

    def stop(self) -> None:
        async def close() -> None:
            self.server.close()
            tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        asyncio.run_coroutine_threadsafe(close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)


class SlowLink:
    """The link and the front in front of `backend` (a Tests/backends Backend): `.service_root` is
    the backend's service root over https on the link; `.round_trip` in seconds."""

    def __init__(self, backend, round_trip: float = 0.05) -> None:
        self.folder = tempfile.TemporaryDirectory(prefix="ood-slow-link-")
        key, self.certificate = self_signed_certificate(Path(self.folder.name))
        self.round_trip = round_trip
        self.front = Front(backend.origin, self.certificate, key)
        self.link = Link(self.front.port, round_trip)
        self.origin = f"https://127.0.0.1:{self.link.port}"
        self.front.public_origin = self.origin
        self.service_root = self.origin + backend.service_root[len(backend.origin):]

    def record(self) -> None:
        """Starts recording the requests (see ``recorded``) and zeroes the counters."""
        with self.front.lock:
            self.front.recording = []
            self.front.server_seconds = 0.0
            self.front.requests = 0
            self.front.handshakes = 0
        self.link.connections = 0

    def recorded(self) -> list[dict]:
        with self.front.lock:
            return list(self.front.recording or [])

    def counters(self) -> dict:
        with self.front.lock:
            return {"requests": self.front.requests, "server_seconds": self.front.server_seconds,
                    "handshakes": self.front.handshakes, "connections": self.link.connections}

    def stop(self) -> None:
        self.link.stop()
        self.front.stop()
        self.folder.cleanup()
