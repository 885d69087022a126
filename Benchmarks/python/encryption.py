"""The cost of encryption at rest (docs/ENCRYPTION.md), with and without a key in one run:
local writes, reads and a download through the Python binding, in alternating rounds, medians;
and the time of an open with a passphrase against one with a raw key (the KDF's cost).

    OFFLINE_ODATA_LIBRARY=... PYTHONPATH=bindings/python python Benchmarks/python/encryption.py

Budgets (issue 33): at most 15% on reads and writes and 20% on the download (medians). The
download is from odatapy (Tests/backends, the "medium" flight sample): the server's time is in
both figures. The machine's load average is printed with the figures.
"""
import os
import resource
import statistics
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
ROUNDS = int(os.environ.get("OOD_ENCRYPTION_ROUNDS", "11"))
WRITES = 300
READS = 2000


def timed(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def cpu_now():
    """(user, system) CPU seconds of this process so far, every thread included: the store's own
    threads (reads, writes) run in this process, so their work is counted with the caller's."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


def measured(function):
    """(wall seconds, process CPU seconds, user CPU seconds) of `function`."""
    user, system = cpu_now()
    start = time.perf_counter()
    function()
    wall = time.perf_counter() - start
    user_after, system_after = cpu_now()
    return wall, (user_after - user) + (system_after - system), user_after - user


def writes_and_reads(folder, key):
    """(wall, process CPU, user CPU) seconds of WRITES local writes, and of READS reads, on a new store."""
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
        write_seconds = measured(write)

        def read():
            for index in range(READS):
                store.get("TravelagencyCollection?$filter=agencynum eq '%08d'" % (index % WRITES))
        read_seconds = measured(read)
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


def interleaved_cpu(folder, batches=60, size=10):
    """Process CPU seconds (user + system, and user alone) of batches of `size` local writes and of
    `size` * 5 reads, on a plain and a keyed store open side by side in this process, the two
    alternating batch by batch (which goes first alternates too): the machine's other load and the
    process's own drift fall on both alike. Lists of per-batch seconds: (writes, reads) each as
    ([plain], [keyed]) for process CPU and for user CPU."""
    with open(METADATA, encoding="utf-8") as f:
        metadata = f.read()
    stores = []
    for name, key in (("ip.store", None), ("ik.store", KEY)):
        path = os.path.join(folder, name)
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.remove(path + suffix)
        stores.append(Store(path, metadata=metadata, mode=Mode.OFFLINE, key=key))
    cpu = {"writes": ([], []), "reads": ([], [])}
    user = {"writes": ([], []), "reads": ([], [])}
    written = [0, 0]
    try:
        for batch in range(batches):
            order = (0, 1) if batch % 2 == 0 else (1, 0)
            for keyed in order:
                store = stores[keyed]

                def write():
                    for _ in range(size):
                        index = written[keyed]
                        written[keyed] += 1
                        store.create("TravelagencyCollection", {"agencynum": "%08d" % index, "name": "Agency %d" % index,
                                                                "city": "Rome", "country": "IT"})

                def read():
                    for index in range(size * 5):
                        store.get("TravelagencyCollection?$filter=agencynum eq '%08d'" % ((batch * 7 + index) % written[keyed]))
                for work, function in (("writes", write), ("reads", read)):
                    _, seconds, user_seconds = measured(function)
                    cpu[work][keyed].append(seconds)
                    user[work][keyed].append(user_seconds)
    finally:
        for store in stores:
            store.close()
    return cpu, user


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
        measures = ("wall", "cpu", "user")
        results = {(work, measure): ([], []) for work in ("writes", "reads") for measure in measures}
        downloads = ([], [])
        server = backends.start_v4(data="medium")
        try:
            for _ in range(ROUNDS):
                for keyed, key in ((0, None), (1, KEY)):
                    w, r = writes_and_reads(folder, key)
                    for index, measure in enumerate(measures):
                        results[("writes", measure)][keyed].append(w[index])
                        results[("reads", measure)][keyed].append(r[index])
                    downloads[keyed].append(download(folder, server.service_root, key))
        finally:
            server.stop()
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; {WRITES} writes, {READS} reads a round; "
              f"CPU time by getrusage(RUSAGE_SELF) around the same work as the wall time, every thread of the process")
        report(f"{WRITES} local writes (wall)", *results[("writes", "wall")], 15)
        report(f"{READS} reads (wall)", *results[("reads", "wall")], 15)
        report(f"{WRITES} local writes (process CPU time)", *results[("writes", "cpu")], 15)
        report(f"{READS} reads (process CPU time)", *results[("reads", "cpu")], 15)
        cpu, user = interleaved_cpu(folder)
        batches = len(cpu["writes"][0])
        print(f"interleaved: a plain and a keyed store open side by side, {batches} alternating batches of 10 writes "
              f"and 50 reads each, CPU time of each batch (getrusage), medians")
        report("10 local writes, interleaved (process CPU time)", *cpu["writes"], 15)
        report("50 reads, interleaved (process CPU time)", *cpu["reads"], 15)
        report("10 local writes, interleaved (user CPU time)", *user["writes"], 15)
        report("50 reads, interleaved (user CPU time)", *user["reads"], 15)
        report("download (medium flight sample)", *downloads, 20)
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
