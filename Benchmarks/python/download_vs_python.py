"""Download through `offline-odata download` from a local page server, against a Python baseline
doing the same with urllib + json + sqlite3.executemany, measured in one run (issue 6).

    python3 Benchmarks/python/download_vs_python.py PATH/TO/offline-odata [PATH/TO/other/offline-odata ...]

For each size (100,000 and 1,000,000 entities; OOD_DOWNLOAD_SIZES=20000,50000 overrides), a page
server (a subprocess: http.server.ThreadingHTTPServer on 127.0.0.1, HTTP/1.1 keep-alive) serves
the V4 collection `Items` of download_items.xml in pages of 1,000 with `@odata.nextLink`
(`Items?$skiptoken=K`). One page of 1,000 is rendered at start with the ids' leading digits left
as placeholders; page K is that page with K (and K + 1 for its last id) put in by bytes.replace,
so the server holds no data set and spends well under a millisecond a page (other page sizes,
asked with `Prefer: odata.maxpagesize` for diagnosis, are rendered entity by entity). Three clients run against it, each a
subprocess timed by the wall clock and reaped with os.wait4 for its peak memory (ru_maxrss):

- server alone: http.client on one keep-alive connection, fetching every page, bodies discarded;
- baseline: urllib.request page by page, json.loads, executemany into a plain table with the same
  columns in a temporary SQLite file, one transaction;
- engine: `offline-odata download` into a store made for download_items.xml (`Items=Items`),
  then checked: the store's `es/Items` table has N rows.

The three run in turn, three rounds (OOD_DOWNLOAD_ROUNDS overrides); each is reported by its run
with the median wall time (and the highest peak memory of its runs), so one slow run on a shared
machine does not decide a ratio. Given more than one tool (another build, an older commit's), each
downloads in every round, in turn with the others, and each is compared with the first: figures
taken close together on a shared machine are the only ones worth comparing.

Each line also gives the CPU time (user + system) of the process: on a busy machine the wall clock
stretches, the CPU time much less. Budgets: the engine at least 2x the baseline's rate; the engine's peak memory at 1,000,000
entities within 1.2x its peak at 100,000.
"""
import http.client
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from bench_figure import report_figure

HERE = os.path.dirname(os.path.abspath(__file__))
METADATA = os.path.join(HERE, "download_items.xml")
PAGE_SIZE = 1000
COLUMNS = ("ID", "Name", "Category", "Price", "Stock", "Weight", "Active", "Released", "ModifiedAt", "Note")


# ---------------------------------------------------------------------------------------------
# The page server (`--serve N`): prints its port, serves until its stdin closes.

def entity_templates():
    """For each `ID % 1000`: the bytes around the id, `{"ID":` id `,"Name":"Item ` id `",...}`."""
    head = b'{"ID":'
    middle = b',"Name":"Item '
    tails = []
    for j in range(PAGE_SIZE):
        rest = {
            "Category": f"Category {j % 17}",
            "Price": float(f"{(j * 7919) % 100000 / 100:.2f}"),
            "Stock": 9_000_000_000 + j * 12_345,
            "Weight": 0.5 + j * 0.125,
            "Active": j % 3 != 0,
            "Released": f"20{10 + j % 15}-{1 + j % 12:02}-{1 + j % 28:02}",
            "ModifiedAt": f"2025-{1 + j % 12:02}-{1 + j % 28:02}T{j % 24:02}:{j % 60:02}:{(j * 7) % 60:02}.{j:03}Z",
            "Note": None,
        }
        tails.append(b'",' + json.dumps(rest, separators=(",", ":")).encode()[1:])
    return head, middle, tails


class PageHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    total = 0
    templates = None
    full_page = b""  # a page of 1,000 with the id prefixes left as \x00 (K) and \x01 (K + 1)
    metadata = b""

    def log_message(self, *arguments):
        pass

    def do_GET(self):
        path, _, query = self.path.partition("?")
        if path.endswith("/$metadata"):
            return self.send(self.metadata, "application/xml")
        if not path.endswith("/Items"):
            return self.send(b'{"error":{"code":"404","message":"no such resource"}}', "application/json", 404)
        parameters = urllib.parse.parse_qs(query)
        start = int(parameters.get("$skiptoken", ["0"])[0])
        size = PAGE_SIZE
        prefer = self.headers.get("Prefer", "")
        if "odata.maxpagesize=" in prefer:  # for diagnosis with the tool's --page-size
            size = int(prefer.split("odata.maxpagesize=")[1].split(",")[0])
        self.send(self.page(start, size), "application/json;odata.metadata=minimal")

    def page(self, start, size):
        end = min(start + size, self.total)
        if start % PAGE_SIZE == 0 and start > 0 and end - start == PAGE_SIZE:
            # The common case, fast: the ids of page K are K followed by 001..999, then K+1 and 000.
            k = start // PAGE_SIZE
            body = self.full_page.replace(b"\x00", b"%d" % k).replace(b"\x01", b"%d" % (k + 1))
        else:
            body = self.render(start, end)
        if end < self.total:
            return body + b',"@odata.nextLink":"Items?$skiptoken=%d"}' % end
        return body + b"}"

    @classmethod
    def render(cls, start, end, number=lambda i: str(i).encode()):
        """The page without its closing brace: the entities start+1 ... end."""
        head, middle, tails = cls.templates
        parts = [b'{"@odata.context":"$metadata#Items","value":[']
        for i in range(start + 1, end + 1):
            text = number(i)
            parts += (head, text, middle, text, tails[i % PAGE_SIZE], b",")
        if end > start:
            parts.pop()
        parts.append(b"]")
        return b"".join(parts)

    def send(self, body, content_type, status=200):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("OData-Version", "4.0")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def serve(total):
    PageHandler.total = total
    PageHandler.templates = entity_templates()
    PageHandler.full_page = PageHandler.render(
        0, PAGE_SIZE, lambda i: b"\x00%03d" % i if i < PAGE_SIZE else b"\x01000")
    with open(METADATA, "rb") as file:
        PageHandler.metadata = file.read()
    server = ThreadingHTTPServer(("127.0.0.1", 0), PageHandler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    print(server.server_address[1], flush=True)
    sys.stdin.read()
    server.shutdown()


# ---------------------------------------------------------------------------------------------
# The clients, each run as its own process.

def fetch_only(root):
    """Server alone: every page on one keep-alive connection, bodies discarded; prints the count."""
    parsed = urllib.parse.urlsplit(root)
    connection = http.client.HTTPConnection(parsed.hostname, parsed.port)
    path = parsed.path + "Items"
    marker = b'"@odata.nextLink":"'
    entities = 0
    while path:
        connection.request("GET", path, headers={"Accept": "application/json", "OData-Version": "4.0"})
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            sys.exit(f"GET {path}: {response.status}")
        entities += body.count(b'{"ID":')
        at = body.rfind(marker, len(body) - 200)
        path = None
        if at >= 0:
            start = at + len(marker)
            path = parsed.path + body[start:body.index(b'"', start)].decode()
    print(entities)


def python_baseline(root, database):
    """urllib + json + executemany into a plain table, in one transaction; prints the row count."""
    connection = sqlite3.connect(database)
    connection.execute(f"CREATE TABLE items ({', '.join(COLUMNS)})")
    insert = f"INSERT INTO items VALUES ({', '.join('?' * len(COLUMNS))})"
    url = root + "Items"
    headers = {"Accept": "application/json;odata.metadata=minimal", "OData-Version": "4.0"}
    while url:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as response:
            page = json.loads(response.read())
        connection.executemany(insert, (tuple(entity[name] for name in COLUMNS) for entity in page["value"]))
        link = page.get("@odata.nextLink")
        url = urllib.parse.urljoin(root, link) if link else None
    connection.commit()
    print(connection.execute("SELECT count(*) FROM items").fetchone()[0])
    connection.close()


# ---------------------------------------------------------------------------------------------
# The driver.

def measured(arguments, output_path):
    """Runs a process to its end; returns (seconds, peak MB, stdout, CPU seconds), failing on a nonzero exit."""
    with open(output_path, "w") as output:
        start = time.perf_counter()
        process = subprocess.Popen(arguments, stdout=output, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    with open(output_path) as output:
        text = output.read()
    if process.returncode != 0:
        sys.exit(f"{' '.join(map(str, arguments))} exited with {process.returncode}:\n{text[-2000:]}")
    return seconds, usage.ru_maxrss / 1024, text, usage.ru_utime + usage.ru_stime


class PageServer:
    def __init__(self, total):
        self.process = subprocess.Popen([sys.executable, __file__, "--serve", str(total)],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.root = f"http://127.0.0.1:{int(self.process.stdout.readline())}/"

    def stop(self):
        """Stops the server; returns its peak memory in MB."""
        self.process.stdin.close()
        _, _, usage = os.wait4(self.process.pid, 0)
        self.process.returncode = 0
        return usage.ru_maxrss / 1024


def run_size(tools, total, folder, rounds):
    """Runs the three clients `rounds` times, in turn, against one page server (the engine once per
    tool: "engine" is the first, "engine 2" the second...); each client's result is the run with its
    median wall time, with the highest peak memory of its runs."""
    server = PageServer(total)
    names = [engine_name(index) for index in range(len(tools))]
    runs = {"alone": [], "baseline": [], **{name: [] for name in names}}
    try:
        me = [sys.executable, __file__]
        for round_number in range(rounds):
            alone = measured(me + ["--fetch", server.root], os.path.join(folder, "fetch.out"))
            if int(alone[2].split()[-1]) != total:
                sys.exit(f"the page server served {alone[2].strip()} entities, not {total}")
            runs["alone"].append(alone)

            database = os.path.join(folder, "baseline.sqlite")
            baseline = measured(me + ["--baseline", server.root, database], os.path.join(folder, "baseline.out"))
            if int(baseline[2].split()[-1]) != total:
                sys.exit(f"the baseline stored {baseline[2].strip()} rows, not {total}")
            os.remove(database)
            runs["baseline"].append(baseline)

            # The engines in turn, the order reversed every other round: none always runs first.
            order = list(zip(names, tools))
            for name, tool in order if round_number % 2 == 0 else order[::-1]:
                runs[name].append(engine_run(tool, server.root, total, folder))
    finally:
        server_peak = server.stop()
    result = {name: median_run(measured_runs) for name, measured_runs in runs.items()}
    result["server_peak"] = server_peak
    result["rounds"] = rounds
    return result


def engine_name(index):
    return "engine" if index == 0 else f"engine {index + 1}"


def engine_run(tool, root, total, folder):
    """One `offline-odata download` of the whole collection into a new store, checked and removed."""
    store = os.path.join(folder, "items.store")
    created = subprocess.run([tool, "store", "create", store, "--metadata", METADATA, "--service", root,
                              "--defining", "Items=Items"], capture_output=True, text=True)
    if created.returncode != 0:
        sys.exit(f"offline-odata store create failed: {created.stderr}")
    engine = measured([tool, "download", store], os.path.join(folder, "engine.out"))
    connection = sqlite3.connect(store)
    rows = connection.execute('SELECT count(*) FROM "es/Items"').fetchone()[0]
    connection.close()
    if rows != total:
        sys.exit(f"the engine stored {rows} rows in es/Items, not {total}: {engine[2][-500:]}")
    for name in os.listdir(folder):
        os.remove(os.path.join(folder, name))
    return engine


def median_run(measured_runs):
    """The run with the median wall time, carrying the highest peak memory of all the runs."""
    ordered = sorted(measured_runs, key=lambda run: run[0])
    seconds, _, text, cpu = ordered[len(ordered) // 2]
    return seconds, max(run[1] for run in measured_runs), text, cpu


def rate(total, result):
    return total / result[0]


def main():
    tools = sys.argv[1:]
    sizes = [int(size) for size in os.environ.get("OOD_DOWNLOAD_SIZES", "100000,1000000").split(",")]
    rounds = int(os.environ.get("OOD_DOWNLOAD_ROUNDS", "3"))
    folder = tempfile.mkdtemp(prefix="ood-download-bench-")
    results = {}
    try:
        for total in sizes:
            r = results[total] = run_size(tools, total, folder, rounds)
            engine, baseline, alone = (rate(total, r[k]) for k in ("engine", "baseline", "alone"))
            verdict = "met" if engine >= 2 * baseline else "MISSED"
            print(f"download {total:,} entities (median of {rounds} runs each, load average {os.getloadavg()[0]:.1f} "
                  f"at the end): engine {engine:,.0f} entities/s ({r['engine'][0]:.2f} s, "
                  f"CPU {r['engine'][3]:.2f} s), peak {r['engine'][1]:.1f} MB | baseline urllib+json+executemany "
                  f"{baseline:,.0f} entities/s ({r['baseline'][0]:.2f} s, CPU {r['baseline'][3]:.2f} s), peak "
                  f"{r['baseline'][1]:.1f} MB | ratio {engine / baseline:.2f} | budget >= 2x ({verdict})")
            report_figure(f"download-{total}.engine-rate", engine, "entities/s", better="higher")
            report_figure(f"download-{total}.engine-cpu", r["engine"][3], "s")
            report_figure(f"download-{total}.engine-peak", r["engine"][1], "MB")
            report_figure(f"download-{total}.python-rate", baseline, "entities/s", better="higher", reference=True)
            report_figure(f"download-{total}.server-alone-rate", alone, "entities/s", better="higher", reference=True)
            note = "" if alone >= 2 * engine else " (NOT clearly faster than the engine: the server may limit it)"
            print(f"download {total:,} entities: server alone (http.client keep-alive, bodies discarded) "
                  f"{alone:,.0f} entities/s ({r['alone'][0]:.2f} s, client CPU {r['alone'][3]:.2f} s), client peak {r['alone'][1]:.1f} MB, "
                  f"server peak {r['server_peak']:.1f} MB | {alone / engine:.1f}x the engine's rate{note}")
            for index, other in enumerate(tools[1:], start=1):
                o = r[engine_name(index)]
                print(f"download {total:,} entities: {engine_name(index)} ({other}) {rate(total, o):,.0f} entities/s "
                      f"({o[0]:.2f} s, CPU {o[3]:.2f} s), peak {o[1]:.1f} MB | ratio to the baseline "
                      f"{rate(total, o) / baseline:.2f} | its time {o[0] / r['engine'][0]:.3f}x the first engine's, "
                      f"its CPU time {o[3] / r['engine'][3]:.3f}x")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if len(sizes) >= 2:
        small, large = min(sizes), max(sizes)
        ratio = results[large]["engine"][1] / results[small]["engine"][1]
        verdict = "met" if ratio <= 1.2 else "MISSED"
        print(f"download peak memory: engine {results[large]['engine'][1]:.1f} MB at {large:,} entities | "
              f"{results[small]['engine'][1]:.1f} MB at {small:,} | ratio {ratio:.2f} | budget <= 1.2x ({verdict})")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(int(sys.argv[2]))
    elif sys.argv[1:2] == ["--fetch"]:
        fetch_only(sys.argv[2])
    elif sys.argv[1:2] == ["--baseline"]:
        python_baseline(sys.argv[2], sys.argv[3])
    else:
        main()
