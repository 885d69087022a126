"""Peak memory of `offline-odata store load` at two sizes (issue 23: 10M entities within 1.2x of
1M). The pages (V4 JSON, 10,000 entities each) are written to a temporary folder first; each
size loads them into a new store, and the tool's peak resident memory is read from the kernel
(`wait4`'s ru_maxrss). The load reads one page file at a time, as a download holds one page.

    python Benchmarks/python/load_memory.py TOOL SMALL LARGE     (e.g. 100000 1000000)
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

from bench_figure import report_figure

METADATA = """<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
  <edmx:DataServices>
    <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="Bench">
      <EntityType Name="Agency">
        <Key><PropertyRef Name="ID"/></Key>
        <Property Name="ID" Type="Edm.Int64" Nullable="false"/>
        <Property Name="Name" Type="Edm.String"/>
        <Property Name="City" Type="Edm.String"/>
        <Property Name="Rating" Type="Edm.Int32"/>
      </EntityType>
      <EntityContainer Name="Container">
        <EntitySet Name="Agencies" EntityType="Bench.Agency"/>
      </EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>
"""
PAGE = 10_000
BUDGET = 1.2


def write_pages(folder, count):
    names = []
    for start in range(0, count, PAGE):
        rows = ",".join(f'{{"ID":{i},"Name":"Agency {i}","City":"City{i % 20}","Rating":{i % 5}}}'
                        for i in range(start, min(start + PAGE, count)))
        name = os.path.join(folder, f"page-{start // PAGE:06d}.json")
        with open(name, "w") as f:
            f.write('{"value":[' + rows + "]}")
        names.append(name)
    return names


def peak_of(arguments):
    """Runs the tool; returns (seconds, peak resident memory in MB)."""
    start = time.perf_counter()
    process = subprocess.Popen(arguments, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{arguments[1:3]} failed")
    return time.perf_counter() - start, usage.ru_maxrss / 1024


def load(tool, folder, pages, count):
    store = os.path.join(folder, f"load-{count}.store")
    metadata = os.path.join(folder, "metadata.xml")
    with open(metadata, "w") as f:
        f.write(METADATA)
    subprocess.run([tool, "store", "create", store, "--metadata", metadata, "--defining", "All=Agencies"],
                   check=True, stdout=subprocess.DEVNULL)
    seconds, peak = peak_of([tool, "store", "load", store, "--defining", "All", *pages])
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(store + suffix):
            os.remove(store + suffix)
    return seconds, peak


def main():
    tool, small, large = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    folder = tempfile.mkdtemp(prefix="ood-load-memory-")
    try:
        pages = write_pages(folder, large)
        results = {}
        for count in (small, large):
            seconds, peak = load(tool, folder, pages[:(count + PAGE - 1) // PAGE], count)
            results[count] = peak
            print(f"store load of {count:,} entities ({(count + PAGE - 1) // PAGE} page files): "
                  f"{seconds:.1f} s, peak memory {peak:.1f} MB")
            report_figure(f"store-load-{count}.seconds", seconds, "s")
            report_figure(f"store-load-{count}.peak", peak, "MB")
        ratio = results[large] / results[small]
        verdict = "within" if ratio <= BUDGET else "over"
        print(f"store load peak memory: {large:,} against {small:,} entities: ratio {ratio:.3f} ({verdict} budget {BUDGET}x)")
    finally:
        shutil.rmtree(folder)


if __name__ == "__main__":
    main()
