"""Peak memory of `offline-odata download` on hostile pages (issue 39), against the bound
docs/SECURITY.md gives: the tool's own memory, plus one page's bytes (at most the answer limit,
--max-response-size), plus about five times the value limit (--max-value-size) while a page is
written (a value decoded, bound, SQLite's record of it, and SQLite's page cache of 16 MiB).
Every service here answers page 1 (one small entity, a next link) and then, as page 2:

    small    one small entity: the tool's own peak, which the others are compared with
    string   one entity whose Name holds 200 MB (refused at the 16 MiB value limit)
    values   entities whose Names hold 15 MiB each, 240 MB in all (under the limits: stored)
    gzip     a gzip bomb: a few hundred KB inflating to N MB (refused at the 256 MiB answer limit)
    error    a 500 answer whose message is 200 MB

For each it prints the tool's exit code, its peak (the operating system's figure for the
process), the peak above the small page's, the bound, and the tool's message.

    python hostile_memory.py <offline-odata> [N MB, default 300]
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_figure import report_figure  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
METADATA = os.path.join(HERE, "download_items.xml")
MIB = 1 << 20
# The library's defaults (HTTPOptions): the answer limit and the value limit.
RESPONSE_LIMIT = 256 * MIB
VALUE_LIMIT = 16 * MIB
# What the bound allows beyond its terms: curl's and zlib's buffers, SQLite's page cache.
SLACK = 8 * MIB

FIRST_PAGE = json.dumps({"value": [{"ID": 1, "Name": "first"}], "@odata.nextLink": "Items?page=2"}).encode()


def hostile_answer(kind, size):
    """(status, headers, body) of page 2 for `kind`, about `size` bytes (before compression)."""
    json_type = {"Content-Type": "application/json"}
    if kind == "small":
        return 200, json_type, json.dumps({"value": [{"ID": 2, "Name": "second"}]}).encode()
    if kind == "string":
        return 200, json_type, b'{"value":[{"ID":2,"Name":"' + b"x" * size + b'"}]}'
    if kind == "values":
        count = max(1, size // (15 * MIB))
        entities = b",".join(b'{"ID":%d,"Name":"' % (2 + n) + b"x" * (15 * MIB) + b'"}' for n in range(count))
        return 200, json_type, b'{"value":[' + entities + b"]}"
    if kind == "gzip":
        body = gzip.compress(b'{"value":[{"ID":2,"Name":"' + b"x" * size + b'"}]}', 9)
        return 200, dict(json_type, **{"Content-Encoding": "gzip"}), body
    if kind == "error":
        return 500, json_type, b'{"error":{"code":"E","message":"' + b"x" * size + b'"}}'
    raise ValueError(kind)


def serve(kind, size):
    """The server process: prints its port and page 2's size, serves until standard input closes."""
    # "KIND-only": the hostile page is the first and only one (no page is kept before it).
    only = kind.endswith("-only")
    status, headers, body = hostile_answer(kind.removesuffix("-only"), size)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *arguments):
            pass

        def do_GET(self):
            if self.path.endswith("/$metadata"):
                with open(METADATA, "rb") as document:
                    return self.answer(200, document.read(), {"Content-Type": "application/xml"})
            if self.path.endswith("?page=2") or only:
                return self.answer(status, body, headers)
            self.answer(200, FIRST_PAGE, {"Content-Type": "application/json"})

        def answer(self, code, content, fields):
            self.send_response(code)
            for name, value in dict(fields, **{"OData-Version": "4.0", "Content-Length": str(len(content))}).items():
                self.send_header(name, value)
            self.end_headers()
            try:
                self.wfile.write(content)
            except (BrokenPipeError, ConnectionResetError):
                pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.handle_error = lambda *arguments: None  # the tool cutting a refused answer short
    threading.Thread(target=server.serve_forever, daemon=True).start()
    print(server.server_address[1], len(body), flush=True)
    sys.stdin.read()
    server.shutdown()


class HostileService:
    """A service in a process of its own (its memory is not the measured one's)."""

    def __init__(self, kind, size):
        self.process = subprocess.Popen([sys.executable, __file__, "--serve", kind, str(size)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        port, self.answer_bytes = (int(field) for field in self.process.stdout.readline().split())
        self.root = f"http://127.0.0.1:{port}/"

    def stop(self):
        self.process.stdin.close()
        self.process.wait()


# Starts the tool from a lean process and prints its exit code and peak (KiB): a child's peak
# counts the memory of the process it was started from (the pages it shared until it ran the tool).
LAUNCHER = """
import os, sys
output = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
pid = os.fork()
if pid == 0:
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def peak(arguments, output_path):
    """(exit code, peak bytes, output) of the command, started from a lean process."""
    launched = subprocess.run([sys.executable, "-S", "-c", LAUNCHER, output_path, *map(str, arguments)],
                              capture_output=True, text=True, check=True)
    code, kib = (int(field) for field in launched.stdout.split())
    with open(output_path) as output:
        return code, kib * 1024, output.read()


def download_peak(tool, service, folder, arguments=()):
    """(exit code, peak bytes, output, store path) of a first download of Items from `service`."""
    store = os.path.join(folder, "hostile.store")
    subprocess.run([tool, "store", "create", store, "--metadata", METADATA, "--service", service.root,
                    "--defining", "Items=Items"], check=True, capture_output=True)
    code, peak_bytes, output = peak([tool, "download", store, *arguments], os.path.join(folder, "download.out"))
    return code, peak_bytes, output, store


def measure(tool, kind, size, arguments=()):
    """(exit code, peak bytes, output, page 2's bytes) of a download whose page 2 is `kind`."""
    service = HostileService(kind, size)
    try:
        with tempfile.TemporaryDirectory() as folder:
            code, peak_bytes, output, _ = download_peak(tool, service, folder, arguments)
    finally:
        service.stop()
    return code, peak_bytes, output, service.answer_bytes


def bound(kind, answer_bytes, response_limit=RESPONSE_LIMIT, value_limit=VALUE_LIMIT):
    """The most the peak may be above the small page's, per docs/SECURITY.md."""
    if kind == "gzip":
        return response_limit + SLACK
    if kind == "values":
        return answer_bytes + 5 * value_limit + SLACK
    return min(answer_bytes, response_limit) + SLACK


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        return serve(sys.argv[2], int(sys.argv[3]))
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tool = sys.argv[1]
    megabytes = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    size = megabytes * 1000 * 1000
    code, base, output, _ = measure(tool, "small", 0)
    if code != 0:
        sys.exit(f"the download of two small pages failed:\n{output}")
    print(f"small pages: exit 0, peak {base / MIB:.0f} MiB (the tool's own)")
    # The values' page stays under the answer limit (a larger one is refused by its Content-Length).
    sizes = {"string": 200 * 1000 * 1000, "values": 240 * 1000 * 1000, "gzip": size, "error": 200 * 1000 * 1000}
    for kind, size_of_kind in sizes.items():
        code, peak_bytes, output, answer_bytes = measure(tool, kind, size_of_kind)
        above = peak_bytes - base
        limit = bound(kind, answer_bytes)
        message = " ".join(output.strip().splitlines()[-1:])[:200]
        print(f"{kind}: page 2 of {answer_bytes / MIB:.1f} MiB: exit {code}, peak {peak_bytes / MIB:.0f} MiB, "
              f"{above / MIB:.0f} MiB above the small pages' (bound {limit / MIB:.0f} MiB"
              f"{', KEPT' if above <= limit else ', PAST THE BOUND'}); {message}")
        report_figure(f"hostile_{kind}_peak_above_small", above / MIB, "MiB")


if __name__ == "__main__":
    main()
