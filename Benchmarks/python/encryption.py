"""The cost of encryption at rest (docs/ENCRYPTION.md), with and without a key in one run:
local writes, reads and a download through the Python binding, in alternating rounds, medians;
and the time of an open with a passphrase against one with a raw key (the KDF's cost).

    OFFLINE_ODATA_LIBRARY=... PYTHONPATH=bindings/python python Benchmarks/python/encryption.py

Budgets (issue 33): at most 15% on reads and writes and 20% on the download (medians). The
download is from odatapy (Tests/backends, the "medium" flight sample): the server's time is in
both figures. The machine's load average is printed with the figures.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

from offline_odata import Mode, Store

HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPOSITORY, "Tests", "backends"))
import backends  # noqa: E402

METADATA = os.path.join(REPOSITORY, "Examples", "FlightSample", "metadata-v4.xml")
KEY = bytes(range(32))
ROUNDS = int(os.environ.get("OOD_ENCRYPTION_ROUNDS", "5"))
WRITES = 300
READS = 2000


def timed(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def writes_and_reads(folder, key):
    """(seconds for WRITES local writes, seconds for READS reads) on a new store."""
    path = os.path.join(folder, "w%s.store" % ("k" if key else "p"))
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    with open(METADATA, encoding="utf-8") as f:
        metadata = f.read()
    with Store(path, metadata=metadata, mode=Mode.OFFLINE, key=key) as store:
        def write():
            for index in range(WRITES):
                store.create("TravelagencyCollection", {"agencynum": "%08d" % index, "name": "Agency %d" % index,
                                                        "city": "Rome", "country": "IT"})
        write_seconds = timed(write)

        def read():
            for index in range(READS):
                store.get("TravelagencyCollection?$filter=agencynum eq '%08d'" % (index % WRITES))
        read_seconds = timed(read)
    return write_seconds, read_seconds


def download(folder, root, key):
    path = os.path.join(folder, "d%s.store" % ("k" if key else "p"))
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    requests = {"Agencies": "TravelagencyCollection", "Flights": "FlightCollection", "Bookings": "BookingCollection"}
    start = time.perf_counter()
    with Store(path, service_root=root, defining_requests=requests, key=key):
        pass  # the first open downloads every defining request
    return time.perf_counter() - start


CHILD = r"""
import os, sys, tempfile, time
from offline_odata import Mode, Store
key = bytes(range(32)) if sys.argv[1] == "key" else None
with open(sys.argv[2], encoding="utf-8") as f:
    metadata = f.read()
folder = tempfile.mkdtemp()
with Store(os.path.join(folder, "c.store"), metadata=metadata, mode=Mode.OFFLINE, key=key) as store:
    start = time.process_time()
    for index in range(%d):
        store.create("TravelagencyCollection", {"agencynum": "%%08d" %% index, "name": "A", "city": "Rome", "country": "IT"})
    middle = time.process_time()
    for index in range(%d):
        store.get("TravelagencyCollection?$filter=agencynum eq '%%08d'" %% (index %% %d))
    end = time.process_time()
print(middle - start, end - middle)
""" % (WRITES, READS, WRITES)


def cpu_seconds(key):
    """(CPU seconds of the writes, of the reads) in a process of their own: the machine's other
    load stretches wall times, much less a process's own CPU time."""
    kind = "key" if key else "plain"
    out = subprocess.run([sys.executable, "-c", CHILD, kind, METADATA], capture_output=True, text=True, check=True,
                         env=dict(os.environ))
    writes, reads = out.stdout.split()
    return float(writes), float(reads)


def open_seconds(path, **key):
    start = time.perf_counter()
    with Store(path, mode=Mode.OFFLINE, **key):
        pass
    return time.perf_counter() - start


def report(name, plain, keyed, budget):
    p, k = statistics.median(plain), statistics.median(keyed)
    cost = (k / p - 1) * 100
    verdict = "within" if cost <= budget else "OVER"
    print(f"encryption {name}: plain {p * 1000:.1f} ms | with key {k * 1000:.1f} ms | cost {cost:+.1f}% "
          f"({verdict} the {budget}% budget; medians of {len(plain)})")


def main():
    with tempfile.TemporaryDirectory() as folder:
        results = {"writes": ([], []), "reads": ([], []), "download": ([], [])}
        server = backends.start_v4(data="medium")
        try:
            for _ in range(ROUNDS):
                for keyed, key in ((0, None), (1, KEY)):
                    w, r = writes_and_reads(folder, key)
                    results["writes"][keyed].append(w)
                    results["reads"][keyed].append(r)
                    results["download"][keyed].append(download(folder, server.service_root, key))
        finally:
            server.stop()
        cpu = {"writes": ([], []), "reads": ([], [])}
        for _ in range(ROUNDS):
            for keyed, key in ((0, None), (1, KEY)):
                w, r = cpu_seconds(key)
                cpu["writes"][keyed].append(w)
                cpu["reads"][keyed].append(r)
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {WRITES} writes, {READS} reads a round")
        report(f"{WRITES} local writes (wall)", *results["writes"], 15)
        report(f"{READS} reads (wall)", *results["reads"], 15)
        report(f"{WRITES} local writes (process CPU time)", *cpu["writes"], 15)
        report(f"{READS} reads (process CPU time)", *cpu["reads"], 15)
        report("download (medium flight sample)", *results["download"], 20)
        # Open: a raw key costs no derivation; a passphrase costs the KDF once.
        raw_path = os.path.join(folder, "wk.store")
        pass_path = os.path.join(folder, "pp.store")
        with open(METADATA, encoding="utf-8") as f:
            with Store(pass_path, metadata=f.read(), mode=Mode.OFFLINE, passphrase="bench words"):
                pass
        raw = [open_seconds(raw_path, key=KEY) for _ in range(ROUNDS)]
        passphrase = [open_seconds(pass_path, passphrase="bench words") for _ in range(ROUNDS)]
        print(f"encryption open: raw key {statistics.median(raw) * 1000:.1f} ms | passphrase "
              f"{statistics.median(passphrase) * 1000:.1f} ms (PBKDF2-HMAC-SHA256, the iterations in the store header)")


if __name__ == "__main__":
    main()
