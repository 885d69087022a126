"""An upload of COUNT changes one request at a time over a slow HTTPS link (issue 38, target 6):
the engine's cost per change against a client that sends the same requests on one kept-alive
connection, in the same run.

Usage: OFFLINE_ODATA_LIBRARY=... PYTHONPATH=bindings/python \\
       slow_link_upload.py TOOL [COUNT] [ROUND_TRIP_MS] [BASE_TOOL]

- The link (slow_link.py) adds ROUND_TRIP_MS (default 50) to every round trip, a connection's
  setup included, in front of an HTTPS front (TLS 1.3, a self-signed certificate made at start)
  to the V4 backend (odatapy).
- The changes (default 1,000) are queued through the Python binding: three in four create an agency
  (its key in the body), the fourth updates the agency created two changes before (PATCH). They go
  as queued (`--no-compact`), by the default upload: one request per change.
- `TOOL upload --insecure` sends them through the link (the certificate is not checked; checking
  it costs no round trip). The front records the requests it forwards.
- The client: a Python process that sends the same recorded requests in the same order with
  `http.client` on one kept-alive HTTPS connection (a new one only if the service closes it), to
  the service reset to its seed.
- BASE_TOOL, if given (an earlier build), uploads the same queue too, for a before/after in the
  same run.
Every upload starts from the service reset to its seed. Figures: milliseconds per change (wall
time of the upload over COUNT), the ratio to the client's, the backend's own share (the front's
time from forwarding a request to having its answer), the round trips per change that the rest
makes at ROUND_TRIP_MS each (the client's and the engine's own work count in it), the TLS
handshakes and connections, and the tool's CPU time per change (user + sys: its local work without
the waits). The load (`uptime`) is printed first.
"""
from __future__ import annotations

import http.client
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "Tests" / "backends"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import backends  # noqa: E402
from bench_figure import report_figure  # noqa: E402
from slow_link import SlowLink  # noqa: E402

SET = "TravelagencyCollection"


def queue_changes(path: Path, service_root: str, count: int) -> None:
    from offline_odata import Store
    with Store.open(path, service_root=service_root, defining_requests={"Agencies": SET}) as store:
        store.download()
        created: list[str] = []
        for number in range(count):
            if number % 4 == 3 and len(created) >= 2:
                store.update(f"{SET}('{created[-2]}')", {"city": f"Updated {number}"})
                continue
            key = f"9{number:07d}"
            store.create(SET, {"agencynum": key, "name": f"Link {number}", "street": "Main St", "city": "Oslo",
                               "country": "NO", "telephone": "555-01"})
            created.append(key)


def engine_upload(tool: str, store: Path, link: SlowLink, count: int) -> dict:
    link.record()
    start = time.perf_counter()
    process = subprocess.Popen([tool, "upload", str(store), "--json", "--no-compact", "--insecure",
                                "--service", link.service_root, "--timeout", "600"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    # wait4 before reading the pipes: the output of an upload is a few lines.
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - start
    output, errors = process.stdout.read().decode(), process.stderr.read().decode()
    document = json.loads(output.strip().splitlines()[-1]) if output.strip() else {}
    if os.waitstatus_to_exitcode(status) != 0 or document.get("sent") != count:
        sys.exit(f"{tool} upload did not send the {count} changes: {output} {errors}")
    return {"seconds": seconds, "cpu": usage.ru_utime + usage.ru_stime, **link.counters(), "recorded": link.recorded()}


def client_upload(requests: list[dict], link: SlowLink, recording: Path) -> dict:
    """The kept-alive client, in a process of its own (see `replay`)."""
    recording.write_text(json.dumps(requests))
    link.record()
    result = subprocess.run([sys.executable, __file__, "--replay", str(recording), link.origin, str(link.certificate)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"the kept-alive client failed: {result.stderr}")
    outcome = json.loads(result.stdout)
    return {**outcome, **link.counters()}


def replay(recording: str, origin: str, certificate: str) -> None:
    """Sends the recorded requests in order on one kept-alive HTTPS connection; prints the seconds
    taken and the statuses that are not 2xx."""
    requests = json.loads(Path(recording).read_text())
    context = ssl.create_default_context(cafile=certificate)
    host, port = origin.removeprefix("https://").split(":")
    start = time.perf_counter()
    connection = http.client.HTTPSConnection(host, int(port), context=context, timeout=600)
    failures = []
    for request in requests:
        headers = {name: value for name, value in request["headers"].items() if name.lower() != "host"}
        connection.request(request["method"], request["target"], body=request["body"].encode("latin-1") or None,
                           headers=headers)
        response = connection.getresponse()
        response.read()
        if response.status >= 300:
            failures.append((request["method"], request["target"], response.status))
        if response.will_close:
            connection.close()
            connection = http.client.HTTPSConnection(host, int(port), context=context, timeout=600)
    connection.close()
    print(json.dumps({"seconds": time.perf_counter() - start, "failures": failures[:5], "failed": len(failures)}))


def main() -> None:
    if sys.argv[1] == "--replay":
        replay(*sys.argv[2:5])
        return
    tool = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    round_trip = (float(sys.argv[3]) if len(sys.argv) > 3 else 50.0) / 1000
    base_tool = sys.argv[4] if len(sys.argv) > 4 else None
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip(), flush=True)
    folder = Path(tempfile.mkdtemp(prefix="ood-slow-link-bench-"))
    server = backends.start_v4(data="small")
    link = SlowLink(server, round_trip)
    try:
        template = folder / "template.store"
        queue_changes(template, server.service_root, count)
        runs = {}
        order = [("engine", tool)] + ([("base", base_tool)] if base_tool else [])
        for label, binary in order:
            server.reset()
            copy = folder / f"{label}.store"
            shutil.copyfile(template, copy)
            runs[label] = engine_upload(binary, copy, link, count)
            if label == "engine":
                server.reset()
                runs["client"] = client_upload(runs["engine"]["recorded"], link, folder / "requests.json")
                if runs["client"]["failed"]:
                    sys.exit(f"the kept-alive client's requests failed: {runs['client']['failures']}")
        client_ms = runs["client"]["seconds"] / count * 1e3
        print(f"slow link: {count} changes, one request each, over https with {round_trip * 1e3:.0f} ms per round trip "
              f"({len(runs['engine']['recorded'])} requests with the engine's own)")
        print(f"  {'':34} {'ms/change':>9} {'x client':>8} {'server ms':>9} {'round trips':>11} {'TLS hs':>6} "
              f"{'conns':>5} {'CPU ms':>6}")
        for label, name in (("client", "kept-alive client (http.client)"), ("base", "engine before (BASE_TOOL)"),
                            ("engine", "engine (TOOL)")):
            if label not in runs:
                continue
            run = runs[label]
            per_change = run["seconds"] / count * 1e3
            server_ms = run["server_seconds"] / count * 1e3
            trips = (per_change - server_ms) / (round_trip * 1e3) if round_trip else 0.0
            print(f"  {name:34} {per_change:9.1f} {per_change / client_ms:8.2f} {server_ms:9.1f} {trips:11.2f} "
                  f"{run['handshakes']:6} {run['connections']:5} "
                  + (f"{run['cpu'] / count * 1e3:6.1f}" if "cpu" in run else f"{'':>6}"))
        print("load at the end:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
        report_figure("slow-link-upload.engine-per-change", runs["engine"]["seconds"] / count * 1e3, "ms")
        report_figure("slow-link-upload.engine-vs-client", runs["engine"]["seconds"] / runs["client"]["seconds"], "x")
        report_figure("slow-link-upload.client-per-change", client_ms, "ms", reference=True)
        if base_tool:
            report_figure("slow-link-upload.base-per-change", runs["base"]["seconds"] / count * 1e3, "ms", reference=True)
    finally:
        link.stop()
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
