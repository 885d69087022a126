"""Peak memory of `offline-odata download` against the size of the service's pages.

A download holds the page being stored and the next one travelling (its bytes only: each entity
is written as soon as it is read), so its peak memory should grow by about a page's bytes per
page size, and not by a multiple of it. The page server of download_vs_python.py serves
200,000 entities (OOD_MEMORY_ENTITIES overrides) of about 195 bytes of JSON each, in the page
size the tool asks for (`download --page-size N`, sent as `Prefer: odata.maxpagesize=N`).

For each page size it reports the page's bytes, the peak resident memory of the tool (the
operating system's figure for the process, ru_maxrss), and the peak's growth over the run with
the smallest pages divided by the growth of the page's bytes: 1.0 would be exactly one more
page's bytes, 2.0 both the page stored and the one travelling.

    python download_memory.py <offline-odata> [page sizes, default 100,1000,10000,50000]
"""
import os
import sqlite3
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import download_vs_python as pages  # noqa: E402  (the page server and the measuring helper)
from bench_figure import report_figure  # noqa: E402


def page_bytes(root, size):
    """The bytes of the first page of `size` entities, as the server sends it."""
    request = urllib.request.Request(root + "Items", headers={"Prefer": f"odata.maxpagesize={size}"})
    with urllib.request.urlopen(request) as answer:
        return len(answer.read())


def peak_of_download(tool, root, size, total):
    """The tool's peak resident memory (MB) for a download in pages of `size`; checks the row count."""
    with tempfile.TemporaryDirectory() as folder:
        store = os.path.join(folder, "items.store")
        pages.measured([tool, "store", "create", store, "--metadata", pages.METADATA, "--service", root,
                        "--defining", "Items=Items"], os.path.join(folder, "create.out"))
        _, peak, _, _ = pages.measured([tool, "download", store, "--page-size", str(size)],
                                       os.path.join(folder, "download.out"))
        connection = sqlite3.connect(store)
        rows = connection.execute('SELECT count(*) FROM "es/Items"').fetchone()[0]
        connection.close()
        if rows != total:
            sys.exit(f"the download in pages of {size} stored {rows} rows, not {total}")
        return peak


def measure(tool, sizes, total):
    """[(page size, page bytes, peak MB)] for each page size, smallest first."""
    server = pages.PageServer(total)
    try:
        return [(size, page_bytes(server.root, size), peak_of_download(tool, server.root, size, total))
                for size in sorted(sizes)]
    finally:
        server.stop()


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tool = sys.argv[1]
    sizes = [int(size) for size in (sys.argv[2] if len(sys.argv) > 2 else "100,1000,10000,50000").split(",")]
    total = int(os.environ.get("OOD_MEMORY_ENTITIES", "200000"))
    results = measure(tool, sizes, total)
    _, smallest_bytes, smallest_peak = results[0]
    print(f"download memory against page size ({total:,} entities, load average {os.getloadavg()[0]:.1f})")
    print(f"{'page':>8} {'page MB':>8} {'peak MB':>8} {'growth / page growth':>21}")
    for size, size_bytes, peak in results:
        grown = size_bytes - smallest_bytes
        ratio = f"{(peak - smallest_peak) * 2**20 / grown:.2f}" if grown > 0 else "-"
        print(f"{size:>8,} {size_bytes / 2**20:>8.2f} {peak:>8.1f} {ratio:>21}")
    for size, _, peak in results:
        report_figure(f"download-memory.page-{size}.peak", peak, "MB")


if __name__ == "__main__":
    main()
