"""The Python binding's cost per call (issue 38, target 5): the same reads on the same store, at
the same moment, through the C API (a C program: ood_request, the body, ood_result_free) and
through the binding (`Store.get(url, raw=True)` and the typed `Store.get(url)`).

The store is made by the engine (`offline-odata store create` and `store load` of generated V4
pages, binding_vs_odatapy.py's store). Each round runs the C program once (SAMPLES medians of
its own) and then the binding's reads of each URL; the figures are medians over ROUNDS rounds in
microseconds per read, and the ratios binding / C. Budgets: a raw read within 1.3x of the C API's,
a typed page ($top=20) within 2x.

    OFFLINE_ODATA_LIBRARY=... PYTHONPATH=bindings/python python Benchmarks/python/binding_call_cost.py \\
        TOOL C_READER [ENTITIES]
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import offline_odata
from bench_figure import report_figure
from binding_vs_odatapy import make_store

ENTITIES = 200_000
ROUNDS = 7
#: Reads per URL, side and round.
REPEAT = 1000


def reads(count):
    """The reads the issue names: a key read, a page, and a key range of a page."""
    return {"key read": f"Agencies({count // 2 + 7})",
            "$top=20": "Agencies?$top=20",
            "key range, $top=20": f"Agencies?$filter=ID gt {count // 2}&$top=20"}


def c_us(reader, store_path, urls):
    """The C program's medians (microseconds per read), by URL."""
    out = subprocess.run([reader, store_path, str(REPEAT), *urls], check=True, capture_output=True, text=True).stdout
    medians = {}
    for line in out.splitlines():
        nanoseconds, url = line.split(" ", 1)
        medians[url] = float(nanoseconds) / 1000
    if set(medians) != set(urls):
        sys.exit(f"binding call cost: the C reader answered {sorted(medians)}, not {urls}")
    return medians


def binding_us(read, url):
    read(url)
    started = time.perf_counter()
    for _ in range(REPEAT):
        read(url)
    return (time.perf_counter() - started) * 1e6 / REPEAT


def main():
    tool, reader = sys.argv[1], sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else ENTITIES
    named = reads(count)
    urls = list(named.values())
    folder = tempfile.mkdtemp(prefix="ood-binding-call-cost-")
    figures = {side: {url: [] for url in urls} for side in ("c", "raw", "typed")}
    try:
        store_path, _ = make_store(tool, folder, count)
        load_before = os.getloadavg()
        with offline_odata.Store.open(store_path, mode=offline_odata.Mode.OFFLINE) as store:
            raw = lambda url: store.get(url, raw=True)  # noqa: E731
            for url in urls:
                if not raw(url) or not store.get(url):
                    sys.exit(f"binding call cost: {url} answered nothing")
            for _ in range(ROUNDS):
                for url, us in c_us(reader, store_path, urls).items():
                    figures["c"][url].append(us)
                for url in urls:
                    figures["raw"][url].append(binding_us(raw, url))
                    figures["typed"][url].append(binding_us(store.get, url))
        load_after = os.getloadavg()
    finally:
        shutil.rmtree(folder, ignore_errors=True)

    print(f"binding call cost: {count:,} entities, store made by the engine; medians of {ROUNDS} rounds of {REPEAT} "
          f"reads per side, microseconds per read; load average {load_before[0]:.2f} before, {load_after[0]:.2f} "
          f"after ({os.cpu_count()} cores)")
    for name, url in named.items():
        c = statistics.median(figures["c"][url])
        raw = statistics.median(figures["raw"][url])
        typed = statistics.median(figures["typed"][url])
        typed_budget = " (budget <= 2.0 for a page)" if "$top" in url else ""
        print(f"binding call cost: {name} ({url}): C API {c:.1f} us | binding raw {raw:.1f} us, ratio {raw / c:.2f} "
              f"(budget <= 1.3) | binding typed {typed:.1f} us, ratio {typed / c:.2f}{typed_budget}")
        slug = "-".join("".join(ch if ch.isalnum() else " " for ch in name).split())
        report_figure(f"binding-call-cost.{slug}.c-api", c, "us", reference=True)
        report_figure(f"binding-call-cost.{slug}.raw", raw, "us")
        report_figure(f"binding-call-cost.{slug}.typed", typed, "us")


if __name__ == "__main__":
    main()
