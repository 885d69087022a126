#!/usr/bin/env python3
"""A fault-injecting HTTP proxy in front of a real test backend (Tests/backends).

    python Tests/sync/fault_proxy.py UPSTREAM_ORIGIN [--port 0]

Binds 127.0.0.1 (port 0 = a free one), prints exactly `READY <port>` on stdout, and forwards every
request to UPSTREAM_ORIGIN (e.g. http://127.0.0.1:41234) unchanged: method, path and query,
headers (Host included, so the backend builds its links on the proxy's address), body. Absolute
URLs of the upstream in an answer's body are rewritten to the proxy's origin as well (in a
multipart answer, a `$batch`'s, only when both origins have the same length, so that the parts'
own Content-Lengths stay right; the backends build their links from the forwarded Host header
anyway). Bodies are bytes throughout: a `$batch` request (multipart or JSON) goes through
unchanged, and a chunked request body is forwarded with its Content-Length.

A rule injects a fault on the Nth request that matches it (method and a regular expression searched
in the path and query), and on the `times - 1` matching requests after it:

    error      answer `status` (default 500) with an OData error body (and the rule's `headers`);
               the backend never sees it
    hang       send nothing for `seconds` (default 30, then close); the backend never sees it
    hold       wait `seconds` (default 30) before forwarding; if the client hangs up meanwhile, the
               request is dropped: a client killed while it waits never had its request applied
    cut        forward, then send the status line, the headers (with the full Content-Length) and
               half the body, and close the connection (an empty body: half the status line)
    malformed  forward, then answer the backend's status and headers with a body that is not JSON
               (the first `:` after an object key past the middle of the body becomes `=`; the log
               entry says at which offset)
    drop       forward (the backend applies the request), read the backend's whole answer, then
               close the client's connection without sending a byte: the client sees an empty reply
               (with `reset: true`, a TCP reset instead). A connection lost after the service
               applied a POST.
    respond    answer without forwarding (the backend never sees it): `status` (default 500), the
               rule's `headers`, and `body` (a string) as `content_type` (default application/json).
               Without `body`: an OData error body (application/json). With `body: ""`: an empty
               body, and a Content-Type only if `content_type` is given. E.g. a login page
               (status 200, content_type "text/html", body "<html>...</html>"), 401, 429 with
               headers {"Retry-After": "1"}, 503, a 201 with body "" and no Location.
    rewrite    forward, then answer the backend's status and headers with the body replaced by
               `body` (default ""), as `content_type` if given (else the backend's Content-Type);
               Content-Length is the new body's. The rule's `headers` replace the backend's of
               the same name. E.g. a create answered 201 with a cut or invalid JSON entity.

`headers` (a JSON object of header names to values) applies to error, respond and rewrite; a
header given there replaces one of the same name the answer would have had.

Control plane (never forwarded):

    POST   /_proxy/rules  {"action": ..., "method": "GET", "match": "regex", "nth": 1, "times": 1,
                           "status": 500, "seconds": 30, "headers": {}, "body": null,
                           "content_type": null, "reset": false}      → 201, the rule with its id
    GET    /_proxy/log    → {"requests": [{"method", "target", "fault", "forwarded", "reused", ["offset"]}, ...]}
                            (`reused`: the request came on a kept-alive connection after another one)
    DELETE /_proxy/rules  → 204; clears the rules and the log

Tests drive it through `FaultProxy` (start, add, log, clear, stop), which ends exactly its process.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import select
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

ACTIONS = ("error", "hang", "hold", "cut", "malformed", "drop", "respond", "rewrite")
#: Never sleep longer than this, whatever a rule asks: the proxy must not outlive a test by much.
MAXIMUM_SECONDS = 120.0
#: Headers that describe one hop, not the message.
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"}


class Rules:
    """The fault rules and the request log, shared by the handler threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.rules: list[dict] = []
        self.log: list[dict] = []
        self.next_id = 1

    def add(self, rule: dict) -> dict:
        action = rule.get("action")
        if action not in ACTIONS:
            raise ValueError(f"action is one of {', '.join(ACTIONS)}, not {action!r}")
        checked = {
            "id": 0, "action": action,
            "method": str(rule.get("method") or "").upper(),
            "match": str(rule.get("match") or ""),
            "nth": int(rule.get("nth", 1)), "times": int(rule.get("times", 1)),
            "status": int(rule.get("status", 500)),
            "seconds": min(float(rule.get("seconds", 30)), MAXIMUM_SECONDS),
            "headers": rule.get("headers") or {},
            "body": rule.get("body"),
            "content_type": rule.get("content_type"),
            "reset": bool(rule.get("reset", False)),
            "seen": 0, "fired": 0,
        }
        if not isinstance(checked["headers"], dict) or not all(
                isinstance(name, str) and isinstance(value, str)
                for name, value in checked["headers"].items()):
            raise ValueError("headers is an object of header names to string values")
        for name in ("body", "content_type"):
            if checked[name] is not None and not isinstance(checked[name], str):
                raise ValueError(f"{name} is a string")
        re.compile(checked["match"])
        if checked["nth"] < 1 or checked["times"] < 1:
            raise ValueError("nth and times are at least 1")
        with self.lock:
            checked["id"] = self.next_id
            self.next_id += 1
            self.rules.append(checked)
        return checked

    def clear(self) -> None:
        with self.lock:
            self.rules.clear()
            self.log.clear()

    def fault_for(self, method: str, target: str, reused: bool = False) -> tuple[dict | None, dict]:
        """The rule that fires on this request (if any) and the request's log entry (`reused`: the
        request came on a kept-alive connection that had carried an earlier one)."""
        with self.lock:
            fired = None
            for rule in self.rules:
                if rule["method"] and rule["method"] != method:
                    continue
                if rule["match"] and not re.search(rule["match"], target):
                    continue
                rule["seen"] += 1
                if fired is None and rule["seen"] >= rule["nth"] and rule["fired"] < rule["times"]:
                    rule["fired"] += 1
                    fired = dict(rule)
            entry = {"method": method, "target": target, "fault": fired["action"] if fired else None,
                     "forwarded": False, "reused": reused}
            self.log.append(entry)
            return fired, entry

    def snapshot(self) -> list[dict]:
        with self.lock:
            return [dict(entry) for entry in self.log]


class ProxyHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "ProxyServer"

    def log_message(self, format: str, *args) -> None:  # quiet
        pass

    def setup(self) -> None:
        super().setup()
        self.served = 0  # requests read on this connection so far


    def do_GET(self) -> None: self.handle_any()
    def do_HEAD(self) -> None: self.handle_any()
    def do_POST(self) -> None: self.handle_any()
    def do_PUT(self) -> None: self.handle_any()
    def do_PATCH(self) -> None: self.handle_any()
    def do_MERGE(self) -> None: self.handle_any()
    def do_DELETE(self) -> None: self.handle_any()

    # -- helpers ------------------------------------------------------------------------------

    def read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()  # the CRLF after the chunk
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length > 0 else b""

    def answer(self, status: int, body: bytes = b"", headers: list[tuple[str, str]] | None = None,
               content_type: str | None = "application/json") -> None:
        self.send_response(status)
        for name, value in headers or []:
            self.send_header(name, value)
        if content_type and not any(name.lower() == "content-type" for name, _ in headers or []):
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def wait(self, seconds: float) -> bool:
        """Sleeps `seconds`; false as soon as the client hangs up (its socket turns readable at EOF)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            readable, _, _ = select.select([self.connection], [], [], min(0.1, left))
            if readable:
                try:
                    if not self.connection.recv(1, socket.MSG_PEEK):
                        return False
                except OSError:
                    return False
                time.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
        return True

    # -- dispatch -----------------------------------------------------------------------------

    def handle_any(self) -> None:
        body = self.read_body()
        if self.path.startswith("/_proxy/"):
            self.control(body)
            return
        self.served += 1
        rule, entry = self.server.rules.fault_for(self.command, self.path, reused=self.served > 1)
        action = rule["action"] if rule else None
        if action == "error" or (action == "respond" and rule["body"] is None):
            message = f"Fault injected by the test proxy (rule {rule['id']}): internal server error"
            payload = {"error": {"code": "PROXY_FAULT", "message": message}}
            self.answer(rule["status"], json.dumps(payload).encode(), list(rule["headers"].items()))
            return
        if action == "respond":
            content_type = rule["content_type"] or ("application/json" if rule["body"] else None)
            self.answer(rule["status"], rule["body"].encode(), list(rule["headers"].items()),
                        content_type=content_type)
            return
        if action == "hang":
            self.wait(rule["seconds"])
            self.close_connection = True
            return
        if action == "hold" and not self.wait(rule["seconds"]):
            self.close_connection = True
            return  # the client is gone: the request never reaches the backend
        status, headers, answer = self.forward(body)
        entry["forwarded"] = True
        if action == "drop":
            # The backend has applied the request and answered; the client gets nothing.
            self.close_connection = True
            try:
                if rule["reset"]:  # close with SO_LINGER 0: an RST instead of a FIN
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                               struct.pack("ii", 1, 0))
                    self.connection.close()
                else:
                    self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if action == "rewrite":
            replaced = {name.lower() for name in rule["headers"]}
            if rule["content_type"]:
                replaced.add("content-type")
            headers = [(name, value) for name, value in headers if name.lower() not in replaced]
            headers += list(rule["headers"].items())
            self.answer(status, (rule["body"] or "").encode(), headers,
                        content_type=rule["content_type"])
            return
        if action == "cut" and not answer:
            # Nothing to cut in half (a 204): half the status line, then close. (curl takes a 204
            # whose headers end early as complete, so the cut must come before the status code.)
            self.wfile.write(b"HTTP/1.1 2")
            self.wfile.flush()
            self.close_connection = True
            return
        if action == "cut":
            self.send_response(status)
            for name, value in headers:
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer[: len(answer) // 2])
            self.wfile.flush()
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        if action == "malformed":
            answer, entry["offset"] = malformed(answer)
        self.answer(status, answer, headers, content_type=None)

    def forward(self, body: bytes) -> tuple[int, list[tuple[str, str]], bytes]:
        upstream = self.server.upstream
        connection = http.client.HTTPConnection(upstream.hostname, upstream.port, timeout=60)
        try:
            headers = {name: value for name, value in self.headers.items()
                       if name.lower() not in HOP_BY_HOP and name.lower() != "content-length"}
            if body or self.command in ("POST", "PUT", "PATCH", "MERGE"):
                headers["Content-Length"] = str(len(body))
            connection.request(self.command, self.path, body=body or None, headers=headers)
            response = connection.getresponse()
            answer = response.read()
            kept = [(name, value) for name, value in response.getheaders()
                    if name.lower() not in HOP_BY_HOP and name.lower() != "content-length"]
            content_type = (response.getheader("Content-Type") or "").lower()
            if not content_type.startswith("multipart/") or \
                    len(self.server.upstream_origin) == len(self.server.origin):
                answer = answer.replace(self.server.upstream_origin, self.server.origin)
            return response.status, kept, answer
        finally:
            connection.close()

    def control(self, body: bytes) -> None:
        rules = self.server.rules
        if self.path == "/_proxy/rules" and self.command == "POST":
            try:
                rule = rules.add(json.loads(body or b"{}"))
            except (ValueError, re.error) as error:
                self.answer(400, json.dumps({"error": str(error)}).encode())
                return
            self.answer(201, json.dumps(rule).encode())
        elif self.path == "/_proxy/rules" and self.command == "DELETE":
            rules.clear()
            self.answer(204, content_type=None)
        elif self.path == "/_proxy/log" and self.command == "GET":
            self.answer(200, json.dumps({"requests": rules.snapshot()}).encode())
        else:
            self.answer(404, b'{"error":"no such control endpoint"}')


def malformed(body: bytes) -> tuple[bytes, int]:
    """`body` with the first name separator `:` after its middle turned into `=`, and the offset
    of that byte: a JSON text no longer. Strings are skipped (with their escapes), so the byte
    changed is the `:` after an object key. A body without one becomes its first half.
    """
    in_string = escaped = False
    for offset, byte in enumerate(body):
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte == 0x3A and offset >= len(body) // 2:  # colon
            return body[:offset] + b"=" + body[offset + 1:], offset
    return body[: len(body) // 2], len(body) // 2


class ProxyServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, port: int, upstream: str) -> None:
        super().__init__(("127.0.0.1", port), ProxyHandler)
        self.upstream = urlsplit(upstream)
        self.upstream_origin = f"{self.upstream.scheme}://{self.upstream.netloc}".encode()
        self.origin = f"http://127.0.0.1:{self.server_address[1]}".encode()
        self.rules = Rules()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Fault-injecting proxy for the sync tests")
    parser.add_argument("upstream", help="the backend's origin, e.g. http://127.0.0.1:41234")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    server = ProxyServer(args.port, args.upstream)
    print(f"READY {server.server_address[1]}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


# --------------------------------------------------------------------------------- test side

class FaultProxy:
    """A running proxy process in front of `backend` (a Tests/backends Backend).

    `.service_root` is the backend's service root on the proxy's address.
    """

    def __init__(self, backend, timeout: float = 20.0) -> None:
        self.backend = backend
        self._stderr = tempfile.TemporaryFile()
        self.process = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), backend.origin],
                                        stdout=subprocess.PIPE, stderr=self._stderr, stdin=subprocess.DEVNULL)
        self.pid = self.process.pid
        try:
            self.port = self._wait_ready(timeout)
        except BaseException:
            self.stop()
            raise
        self.origin = f"http://127.0.0.1:{self.port}"
        self.service_root = self.origin + backend.service_root[len(backend.origin):]

    def _wait_ready(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        buffered = b""
        while time.monotonic() < deadline:
            readable, _, _ = select.select([fd], [], [], 0.2)
            if readable:
                chunk = os.read(fd, 1024)
                if not chunk:
                    break
                buffered += chunk
                for line in buffered.decode(errors="replace").splitlines():
                    if line.startswith("READY "):
                        return int(line.split()[1])
            elif self.process.poll() is not None:
                break
        self._stderr.seek(0)
        raise RuntimeError(f"the fault proxy did not start: {buffered!r}\n{self._stderr.read().decode(errors='replace')}")

    def _call(self, method: str, path: str, payload: dict | None = None):
        data = json.dumps(payload).encode() if payload is not None else None
        request = urllib.request.Request(self.origin + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
        return json.loads(text) if text else None

    def add(self, action: str, match: str = "", method: str = "", nth: int = 1, times: int = 1,
            status: int = 500, seconds: float = 30, headers: dict[str, str] | None = None,
            body: str | None = None, content_type: str | None = None, reset: bool = False) -> dict:
        """Injects `action` on the `nth` request matching `method` and `match` (and `times - 1` after it).

        `headers`, `body`, `content_type`: for error/respond/rewrite; `reset`: for drop (see the
        module's docstring).
        """
        rule = {"action": action, "match": match, "method": method, "nth": nth, "times": times,
                "status": status, "seconds": seconds, "reset": reset}
        if headers:
            rule["headers"] = headers
        if body is not None:
            rule["body"] = body
        if content_type is not None:
            rule["content_type"] = content_type
        return self._call("POST", "/_proxy/rules", rule)

    def log(self) -> list[dict]:
        """The requests the proxy forwarded, without the service model's checks (`GET $metadata`,
        which every download makes first since issue 34): the tests count pages."""
        return [entry for entry in self._call("GET", "/_proxy/log")["requests"]
                if not entry["target"].split("?")[0].endswith("/$metadata")]

    def clear(self) -> None:
        self._call("DELETE", "/_proxy/rules")

    def stop(self) -> None:
        """Ends exactly this proxy's process."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=5)
        if self.process.stdout:
            self.process.stdout.close()
        self._stderr.close()


if __name__ == "__main__":
    sys.exit(main())
