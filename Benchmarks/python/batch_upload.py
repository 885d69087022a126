"""Upload of 10,000 queued changes to the V4 backend with `$batch` (issue 6, acceptance 4): the
engine's own time per change, reported apart from the server's.

Usage: batch_upload.py OFFLINE_ODATA_TOOL OFFLINE_ODATA_BENCHMARKS [COUNT] [BATCH_SIZE] [TRANSACTION_SIZE]

The changes are queued in transactions of TRANSACTION_SIZE (default 100, as many as a batch holds)
and uploaded with `--group-by-transaction`, so each `$batch` carries one change set. The reason is
the backend: odatapy deep-copies its whole in-memory store for every change set (its rollback), so
with one change set per change the server's time grows with the data, 70-95 ms per change and more,
and 10,000 changes took over 55 minutes. TRANSACTION_SIZE 0 sends one change set per change.

How the split is measured, in one run:
1. Start odatapy (Tests/backends/backends.py `start_v4`), create a store with the flight sample's
   V4 metadata, and queue COUNT changes through the engine's API (`offline-odata-benchmarks
   queue-writes`: three in four are creates, every third create is then updated, which the batch
   sends as `PATCH $<n>` with `If-Match: *` in the create's change set). One `offline-odata
   request` process per change takes about 100 ms: 10,000 of them would take over 15 minutes.
2. Time `offline-odata upload --batch` (wall clock: process start, store open, reading the
   queue, building bodies, HTTP, parsing answers, recording them durably) through a timing
   proxy in front of the backend. The proxy measures, for every request, the round trip from
   sending it to the backend to having the backend's whole answer: that sum is the server time.
3. Engine = total - server. The proxy's own forwarding cost lands in the engine's share, so the
   figure is an upper bound. The tool's CPU time (user + sys, from wait4) is printed too: it is
   the engine's work without any waiting (durable commits wait on the disk, not the CPU).
"""
import http.client
import os
import http.server
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "Tests" / "backends"))

import backends  # noqa: E402
from bench_figure import report_figure  # noqa: E402

METADATA = REPOSITORY / "Examples" / "FlightSample" / "metadata-v4.xml"


class TimingProxy:
    """An HTTP proxy that forwards to the backend and sums the backend's round trips."""

    def __init__(self, upstream: str):
        self.upstream = urllib.parse.urlsplit(upstream)
        self.requests = 0
        self.batches = 0
        self.server_seconds = 0.0
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def forward(self):
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection", "content-length")}
                connection = http.client.HTTPConnection(recorder.upstream.hostname, recorder.upstream.port, timeout=3600)
                connection.connect()
                start = time.perf_counter()
                connection.request(self.command, self.path, body=body, headers=headers)
                answer = connection.getresponse()
                data = answer.read()
                recorder.server_seconds += time.perf_counter() - start
                recorder.requests += 1
                recorder.batches += self.path.endswith("$batch")
                self.send_response(answer.status)
                for name, value in answer.getheaders():
                    if name.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                connection.close()

            do_GET = do_POST = do_PUT = do_PATCH = do_MERGE = do_DELETE = forward

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.root = f"http://127.0.0.1:{self.server.server_address[1]}/"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


def run(*arguments):
    result = subprocess.run([str(a) for a in arguments], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{arguments[0]} {arguments[1]} failed: {result.stderr or result.stdout}")
    return result.stdout


def timed(*arguments):
    """Runs a command; returns its output, wall seconds and CPU seconds (user + sys)."""
    start = time.perf_counter()
    process = subprocess.Popen([str(a) for a in arguments], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    output = process.stdout.read().decode() + process.stderr.read().decode()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{arguments[0]} {arguments[1]} failed: {output}")
    return output, wall, usage.ru_utime + usage.ru_stime


def as_queued(tool):
    """`--no-compact` where the tool compacts the queue before an upload (since issue 25): the
    benchmark sends every change it queued; a tool from before compaction sends them as queued."""
    return ["--no-compact"] if "--no-compact" in run(tool, "upload", "--help") else []


def main():
    tool, benchmarks = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000
    batch_size = sys.argv[4] if len(sys.argv) > 4 else "100"
    transaction_size = int(sys.argv[5]) if len(sys.argv) > 5 else int(batch_size)
    folder = Path(tempfile.mkdtemp(prefix="ood-batch-upload-"))
    server = backends.start_v4(data="small")
    proxy = TimingProxy(server.service_root)
    try:
        store = folder / "batch.store"
        run(tool, "store", "create", store, "--metadata", METADATA, "--service", server.service_root)
        start = time.perf_counter()
        run(benchmarks, "queue-writes", store, count, *([transaction_size] if transaction_size else []))
        queue_seconds = time.perf_counter() - start
        grouping = ["--group-by-transaction"] if transaction_size else []
        output, total_seconds, cpu_seconds = timed(tool, "upload", store, "--batch", "--batch-size", batch_size, *grouping,
                                                   *as_queued(tool), "--service", proxy.root, "--timeout", "3600")
        if f"{count} sent, 0 moved" not in output:
            sys.exit(f"the upload did not send every change: {output}")
    finally:
        proxy.stop()
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)

    engine = total_seconds - proxy.server_seconds
    shape = f"change sets of {transaction_size} (one transaction each)" if transaction_size else "one change set per change"
    print(f"batch upload: {count} changes in {proxy.batches} $batch requests of at most {batch_size}, {shape} "
          f"({proxy.requests} requests with the CSRF fetch; queued locally in {queue_seconds:.2f} s)")
    print(f"  total (offline-odata upload --batch)   {total_seconds:9.2f} s")
    print(f"  server (backend round trips, proxy)    {proxy.server_seconds:9.2f} s = "
          f"{proxy.server_seconds / count * 1e3:.1f} ms per change")
    print(f"  engine (total - server)                {engine:9.2f} s = {engine / count * 1e6:.0f} µs per change")
    print(f"  engine CPU (tool user + sys)           {cpu_seconds:9.2f} s = {cpu_seconds / count * 1e6:.0f} µs per change")
    report_figure("batch-upload.queue-per-change", queue_seconds / count * 1e6, "µs")
    report_figure("batch-upload.engine-per-change", engine / count * 1e6, "µs")
    report_figure("batch-upload.engine-cpu-per-change", cpu_seconds / count * 1e6, "µs")
    report_figure("batch-upload.server-per-change", proxy.server_seconds / count * 1e3, "ms", reference=True)


if __name__ == "__main__":
    main()
