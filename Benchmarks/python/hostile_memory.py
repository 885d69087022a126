"""Peak memory of `offline-odata download` on hostile pages (issue 39): a page whose one entity
holds one 200 MB string, and a gzip bomb (a small compressed answer that inflates past the 256 MiB
answer limit). Prints each peak (the operating system's figure for the tool's process) against
the size involved; the tool's exit code and message say whether the page was refused.

    python hostile_memory.py <offline-odata> [string MB, default 200]
"""
import gzip
import os
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
METADATA = os.path.join(HERE, "download_items.xml")


def hostile_server(kind, megabytes):
    """A service whose Items answer is hostile: `string` (one entity, one huge Name) or `gzip`."""
    if kind == "string":
        body = b'{"value":[{"ID":1,"Name":"' + b"x" * (megabytes << 20) + b'"}]}'
        headers = {"Content-Type": "application/json"}
    else:
        # A value of 300 MiB of one repeated byte inside valid JSON, gzip-compressed (about 300 KB).
        body = gzip.compress(b'{"value":[{"ID":1,"Name":"' + b"x" * (300 << 20) + b'"}]}', 9)
        headers = {"Content-Type": "application/json", "Content-Encoding": "gzip"}

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *arguments):
            pass

        def do_GET(self):
            if self.path.endswith("/$metadata"):
                with open(METADATA, "rb") as document:
                    return self.answer(document.read(), {"Content-Type": "application/xml"})
            self.answer(body, headers)

        def answer(self, content, fields):
            self.send_response(200)
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
    return server, len(body)


def peak(tool, root, folder):
    store = os.path.join(folder, "hostile.store")
    subprocess.run([tool, "store", "create", store, "--metadata", METADATA, "--service", root, "--defining", "Items=Items"],
                   check=True, capture_output=True)
    process = subprocess.Popen([tool, "download", store], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _, status, usage = os.wait4(process.pid, 0)
    stderr = process.stderr.read()
    return os.waitstatus_to_exitcode(status), usage.ru_maxrss / 1024, stderr.strip()[:160]


def serve(kind, megabytes):
    """The server process: prints its port and the answer's size, serves until standard input closes."""
    server, size = hostile_server(kind, megabytes)
    print(server.server_address[1], size, flush=True)
    sys.stdin.read()
    server.shutdown()


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--serve":
        return serve(sys.argv[2], int(sys.argv[3]))
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tool = sys.argv[1]
    megabytes = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    for kind in ("string", "gzip"):
        # The server runs in a process of its own: the tool is started from this lean one, whose
        # memory a child's peak would otherwise include (a forked child counts its parent's pages
        # until it executes the tool).
        server = subprocess.Popen([sys.executable, __file__, "--serve", kind, str(megabytes)],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        port, size = (int(field) for field in server.stdout.readline().split())
        try:
            with tempfile.TemporaryDirectory() as folder:
                code, peak_mb, message = peak(tool, f"http://127.0.0.1:{port}/", folder)
        finally:
            server.stdin.close()
            server.wait()
        what = f"one {megabytes} MB string" if kind == "string" else f"gzip bomb ({size / 1024:.0f} KB inflating to 300 MiB)"
        print(f"{what}: exit {code}, peak {peak_mb:.0f} MB; {message}")


if __name__ == "__main__":
    main()
