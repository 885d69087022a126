"""A 100 MB media stream downloaded into the store and uploaded back as a media entity created
offline (issue 35, docs/MEDIA.md) through the Python binding, against odatapy serving the media
model (Tests/backends/media_streams.py): the growth of the process's peak memory during the
download and during the upload, the times, and the SHA-256 of the stream after the round trip.

    OFFLINE_ODATA_LIBRARY=... PYTHONPATH=bindings/python python Benchmarks/python/media_stream.py

Budget (issue 35): peak memory growth under 16 MB, SHA-256 equal. The peak is the kernel's
high-water mark (VmHWM), reset just before the download (`/proc/self/clear_refs`), so it counts
what the download itself took; the machine's load average is printed with the figures.
"""
import hashlib
import os
import sys
import tempfile
import time
import urllib.request

from offline_odata import Store

HERE = os.path.dirname(os.path.abspath(__file__))
REPOSITORY = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPOSITORY, "Tests", "backends"))
import backends  # noqa: E402

SIZE = int(os.environ.get("OOD_MEDIA_BENCH_BYTES", str(100 * 1000 * 1000)))
BUDGET = 16 << 20


def memory(field):
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(field + " not in /proc/self/status")


def served_sha256(server, url):
    digest = hashlib.sha256()
    with urllib.request.urlopen(server.url(url), timeout=300) as answer:
        while True:
            chunk = answer.read(1 << 20)
            if not chunk:
                return digest.hexdigest()
            digest.update(chunk)


def file_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        while True:
            chunk = file.read(1 << 20)
            if not chunk:
                return digest.hexdigest()
            digest.update(chunk)


def main():
    with backends.start_v4_media(count=1, size=SIZE) as server, tempfile.TemporaryDirectory() as folder:
        expected = served_sha256(server, "Documents(1)/$value")
        path = os.path.join(folder, "media.store")
        # First without streams: the entity comes with the store's first download.
        Store(path, service_root=server.service_root, defining_requests={"Documents": "Documents"}).close()
        # Then the same defining request retrieving streams: the next download fetches the stream.
        store = Store(path, service_root=server.service_root, stream_requests={"Documents": "Documents"})
        try:
            before = memory("VmRSS")
            with open("/proc/self/clear_refs", "w") as refs:
                refs.write("5")  # resets VmHWM to the current RSS
            start = time.perf_counter()
            store.download()
            seconds = time.perf_counter() - start
            peak = memory("VmHWM")
            stream_path, length, _ = store.stream_file("Documents(1)/$value")
        finally:
            store.close()
        growth = peak - before
        equal = file_sha256(stream_path) == expected
        load = os.getloadavg()[0]
        print(f"media stream down: {length / 1e6:.0f} MB in {seconds:.2f} s; peak memory growth "
              f"{growth / (1 << 20):.1f} MiB (budget 16); SHA-256 equal: {equal}; load average {load:.2f}")
        failed = growth >= BUDGET or not equal or length != SIZE

        # Up: the same bytes as a media entity created offline, sent as a media POST from the file.
        store = Store(path, service_root=server.service_root, stream_requests={"Documents": "Documents"})
        try:
            store.create_media("Documents", stream_path, "application/octet-stream", {"title": "round trip"})
            before = memory("VmRSS")
            with open("/proc/self/clear_refs", "w") as refs:
                refs.write("5")
            start = time.perf_counter()
            sent = store.upload().sent
            seconds = time.perf_counter() - start
            peak = memory("VmHWM")
        finally:
            store.close()
        growth = peak - before
        round_trip = served_sha256(server, "Documents(2)/$value")
        equal = round_trip == expected
        print(f"media stream up: {SIZE / 1e6:.0f} MB in {seconds:.2f} s ({sent} request); peak memory growth "
              f"{growth / (1 << 20):.1f} MiB (budget 16); SHA-256 after the round trip equal: {equal}; "
              f"load average {os.getloadavg()[0]:.2f}")
        if failed or growth >= BUDGET or not equal or sent != 1:
            sys.exit(1)


if __name__ == "__main__":
    main()
