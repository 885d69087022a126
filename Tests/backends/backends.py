#!/usr/bin/env python3
"""Start the flight sample's real OData backends from tests and scripts.

    from backends import start_v4, start_v2
    with start_v4(page_size=50) as v4:          # odatapy 5.3.0, OData V4
        urllib.request.urlopen(v4.service_root + "TravelagencyCollection")
        v4.reset()                              # back to the seed
    with start_v2(csrf=True, page_size=20) as v2:  # mock-sap 0.22.0, OData V2 (SAP Gateway flavour)
        ...

Each call starts the server in a subprocess on a free 127.0.0.1 port, waits for its `READY <port>`
line (or fails with the server's stderr), and `.stop()` (or leaving the `with` block) ends exactly
that process. The data is the flight sample's generator output; `data` is a size name from SIZES,
a dict of generator arguments, or the path of a seed JSON file.

Command line (for `make demo` and manual poking); runs until Ctrl-C or SIGTERM, then stops its
backend:

    .venv/bin/python Tests/backends/backends.py serve v4|v2 [--size tiny|small|medium|large] [--port N]
                                               [--page-size N] [--no-csrf] [--repeatable]
"""
from __future__ import annotations

import argparse
import atexit
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SAMPLE = ROOT / "Examples" / "FlightSample"
METADATA_V4 = SAMPLE / "metadata-v4.xml"
METADATA_V2 = SAMPLE / "metadata-v2.xml"
V2_PATH = "/sap/opu/odata/sap/RMTSAMPLEFLIGHT_SRV/"

#: Generator arguments per size name. "small" is the generator's default data set.
SIZES: dict[str, dict[str, int]] = {
    "tiny": {"agencies": 12, "carriers": 5, "flights": 10, "bookings": 30, "seed": 1},
    "small": {"agencies": 40, "carriers": 12, "flights": 80, "bookings": 300, "seed": 1},
    "medium": {"agencies": 300, "carriers": 15, "flights": 600, "bookings": 3000, "seed": 1},
    "large": {"agencies": 1000, "carriers": 15, "flights": 2000, "bookings": 10000, "seed": 1},
}

_tmpdir: str | None = None
_seed_cache: dict[str, Path] = {}


def _scratch() -> Path:
    global _tmpdir
    if _tmpdir is None:
        _tmpdir = tempfile.mkdtemp(prefix="ood-backends-")
        atexit.register(shutil.rmtree, _tmpdir, True)
    return Path(_tmpdir)


def seed_file(data: str | dict | os.PathLike = "small") -> Path:
    """The seed JSON for `data` (generated once per process and argument set)."""
    if isinstance(data, (str, os.PathLike)) and str(data) not in SIZES:
        path = Path(data)
        if not path.is_file():
            raise ValueError(f"no such seed file and no such size: {data!r}")
        return path
    args = dict(SIZES[data]) if isinstance(data, str) else dict(data)
    cache_key = json.dumps(args, sort_keys=True)
    if cache_key not in _seed_cache:
        out = _scratch() / f"seed-{len(_seed_cache)}.json"
        cmd = [sys.executable, str(SAMPLE / "generate.py"), "--output", str(out)]
        for name, value in args.items():
            cmd += [f"--{name}", str(value)]
        subprocess.run(cmd, check=True, timeout=600)
        _seed_cache[cache_key] = out
    return _seed_cache[cache_key]


def load_seed(data: str | dict | os.PathLike = "small") -> dict[str, list[dict[str, Any]]]:
    with open(seed_file(data), encoding="utf-8") as f:
        return json.load(f)


class BackendError(RuntimeError):
    pass


class Backend:
    """A running backend process. `.service_root` ends with a slash."""

    def __init__(self, kind: str, cmd: list[str], path: str, seed: Path, timeout: float):
        self.kind = kind
        self.seed_path = seed
        self._stderr = tempfile.TemporaryFile(mode="w+b")
        self.process = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self._stderr,
                                        stdin=subprocess.DEVNULL, cwd=str(ROOT))
        self.pid = self.process.pid
        try:
            self.port = self._wait_ready(timeout)
        except BaseException:
            self.stop()
            raise
        self.origin = f"http://127.0.0.1:{self.port}"
        self.service_root = self.origin + path

    def _stderr_text(self) -> str:
        self._stderr.seek(0)
        return self._stderr.read().decode("utf-8", "replace")[-4000:]

    def _wait_ready(self, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        buffered = b""
        fd = self.process.stdout.fileno()
        while time.monotonic() < deadline:
            ready, _, _ = select.select([fd], [], [], min(0.2, max(0.0, deadline - time.monotonic())))
            if ready:
                chunk = os.read(fd, 4096)
                if not chunk:
                    break  # the server closed stdout: it exited
                buffered += chunk
                for line in buffered.decode("utf-8", "replace").splitlines():
                    if line.startswith("READY "):
                        return int(line.split()[1])
            elif self.process.poll() is not None:
                break
        try:
            self.process.wait(timeout=2)  # stdout closed: the server is exiting
        except subprocess.TimeoutExpired:
            pass
        state = (f"exited with status {self.process.returncode}"
                 if self.process.returncode is not None else f"not ready after {timeout:.0f} s")
        raise BackendError(f"{self.kind} backend {state}.\nstdout: {buffered.decode(errors='replace')}"
                           f"\nstderr:\n{self._stderr_text()}")

    def url(self, path: str = "") -> str:
        return self.service_root + path

    def reset(self) -> None:
        """Restore the seed data (POST /_reset on the server)."""
        request = urllib.request.Request(self.origin + "/_reset", data=b"", method="POST")
        with urllib.request.urlopen(request, timeout=60) as response:
            if response.status not in (200, 204):
                raise BackendError(f"reset answered {response.status}")

    def stop(self) -> None:
        """End exactly this backend's process."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        if self.process.stdout:
            self.process.stdout.close()
        self._stderr.close()

    def __enter__(self) -> "Backend":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<Backend {self.kind} pid={self.pid} {getattr(self, 'service_root', '?')}>"


def start_v4(page_size: int | None = None, data: str | dict | os.PathLike = "small", *,
             autokey: tuple[str, ...] = ("TravelagencyCollection", "BookingCollection"),
             repeatable: bool = False, replay_result: str = "replayed", page_deltas: int = 0,
             port: int = 0, timeout: float = 60.0, metadata: os.PathLike | None = None,
             alternate_keys: tuple[str, ...] = ()) -> Backend:
    """odatapy (OData V4) serving metadata-v4.xml; service root http://127.0.0.1:PORT/.

    `repeatable`: OASIS Repeatable Requests 1.0 (`--repeatable`, README.md); `replay_result` is the
    `Repeatability-Result` of a replayed answer (`"accepted"` for the specification's own value).
    `metadata`: another version of the sample's model (a test that changes the service's model
    restarts it with one, on the same `port`).
    `alternate_keys`: `SET=PROP[,PROP]` keys $metadata declares (`Core.AlternateKeys`).
    """
    seed = seed_file(data)
    cmd = [sys.executable, str(HERE / "odatapy_server.py"), str(metadata or METADATA_V4), str(seed),
           "--port", str(port), "--change-stamp", "ChangedAt"]
    if page_size:
        cmd += ["--page-size", str(page_size)]
    for name in autokey:
        cmd += ["--autokey", name]
    if repeatable:
        cmd += ["--repeatable", "--replay-result", replay_result]
    for key in alternate_keys:
        cmd += ["--alternate-key", key]
    if page_deltas:
        cmd += ["--page-deltas", str(page_deltas)]  # deltas in pages too (odatapy_server.py)
    if metadata:
        cmd.append("--changed-model")
    return Backend("v4", cmd, "/", seed, timeout)


def start_v4_model(metadata: os.PathLike, seed: dict[str, list[dict[str, Any]]], *, port: int = 0,
                   timeout: float = 60.0) -> Backend:
    """odatapy serving another CSDL 4.0 model (`metadata`) with primitive `seed` rows; service root
    http://127.0.0.1:PORT/."""
    path = _scratch() / f"seed-model-{len(list(_scratch().glob('seed-model-*')))}.json"
    path.write_text(json.dumps(seed), encoding="utf-8")
    cmd = [sys.executable, str(HERE / "odatapy_server.py"), str(metadata), str(path), "--port", str(port)]
    return Backend("v4", cmd, "/", path, timeout)


MEDIA_V4 = HERE / "models" / "media-v4.xml"


def media_seed(count: int, size: int) -> dict[str, list[dict[str, Any]]]:
    """`count` media entities `Documents(1..count)` of `size` bytes each (media_streams.py makes
    their content), two plain `Notes`, and three `Inspections` with two `Edm.Stream` properties
    (`photo` of `size` bytes, `signature` of 300; Inspections(3) has no signature)."""
    return {"Documents": [{"id": i, "title": f"document {i}", "owner": "field",
                           "@mediaSize": size, "@mediaType": "application/pdf"}
                          for i in range(1, count + 1)],
            "Notes": [{"id": 1, "text": "first"}, {"id": 2, "text": "second"}],
            "Inspections": [{"id": i, "place": f"site {i}",
                             "@streams": {"photo": size, **({"signature": 300} if i < 3 else {})}}
                            for i in range(1, 4)]}


def start_v4_media(count: int = 5, size: int = 1000, *, port: int = 0, page_size: int | None = None,
                   timeout: float = 60.0) -> Backend:
    """odatapy serving the media model (models/media-v4.xml: `Documents`, HasStream, keys 1..count,
    streams of `size` bytes; `Notes`, plain) with media_streams.py's ranges, media ETags and
    `/_media_log`; service root http://127.0.0.1:PORT/."""
    path = _scratch() / f"seed-media-{count}-{size}.json"
    path.write_text(json.dumps(media_seed(count, size)), encoding="utf-8")
    cmd = [sys.executable, str(HERE / "odatapy_server.py"), str(MEDIA_V4), str(path), "--port", str(port),
           "--autokey", "Documents"]
    if page_size:
        cmd += ["--page-size", str(page_size)]
    return Backend("v4", cmd, "/", path, timeout)


def start_v2(csrf: bool = True, data: str | dict | os.PathLike = "small", *,
             require_if_match: bool = False, page_size: int | None = None, port: int = 0,
             timeout: float = 60.0, metadata: os.PathLike | None = None) -> Backend:
    """mock-sap (OData V2); service root http://127.0.0.1:PORT/sap/opu/odata/sap/RMTSAMPLEFLIGHT_SRV/.

    `page_size`: server-driven paging of entity set reads (`__next`, mocksap_server.py); None: none.
    """
    seed = seed_file(data)
    cmd = [sys.executable, str(HERE / "mocksap_server.py"), str(metadata or METADATA_V2), str(seed),
           "--port", str(port)]
    if page_size:
        cmd += ["--page-size", str(page_size)]
    if not csrf:
        cmd.append("--no-csrf")
    if require_if_match:
        cmd.append("--require-if-match")
    return Backend("v2", cmd, V2_PATH, seed, timeout)


MEDIA_V2 = HERE / "models" / "media-v2.xml"


def start_v2_media(count: int = 3, size: int = 1000, *, port: int = 0, csrf: bool = True,
                   timeout: float = 60.0) -> Backend:
    """mock-sap serving the V2 media model (models/media-v2.xml: `Documents`, HasStream, keys
    '000001'..count assigned by the service for new ones, streams of `size` bytes) with
    media_v2.py's `$value`, media POST and `/_media_log`; service root as start_v2's."""
    seed = {"Documents": [{"DocId": f"{i:06d}", "Title": f"document {i}", "ChangedAt": "2026-01-01T00:00:00",
                           "@mediaSize": size, "@mediaType": "application/pdf"} for i in range(1, count + 1)]}
    path = _scratch() / f"seed-media-v2-{count}-{size}.json"
    path.write_text(json.dumps(seed), encoding="utf-8")
    return start_v2(csrf=csrf, data=path, port=port, timeout=timeout, metadata=MEDIA_V2)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Start a flight sample backend")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="start one backend and print its service root")
    serve.add_argument("version", choices=["v4", "v2"])
    serve.add_argument("--size", choices=sorted(SIZES), default="small")
    serve.add_argument("--port", type=int, default=0)
    serve.add_argument("--page-size", type=int, default=0, help="server-driven paging (0: none)")
    serve.add_argument("--no-csrf", action="store_true", help="V2 only")
    serve.add_argument("--repeatable", action="store_true", help="V4 only: repeatable requests")
    serve.add_argument("--metadata", default=None,
                       help="another version of the sample's $metadata (a changed model; same port to swap it)")
    serve.add_argument("--media", default=None, metavar="COUNT:SIZE",
                       help="the media model (models/media-v4.xml, V2: models/media-v2.xml) with COUNT streams of SIZE bytes")
    args = parser.parse_args(argv)
    if args.version == "v4" and args.media:
        count, size = (int(part) for part in args.media.split(":", 1))
        backend = start_v4_media(count, size, port=args.port, page_size=args.page_size or None)
    elif args.media:
        count, size = (int(part) for part in args.media.split(":", 1))
        backend = start_v2_media(count, size, port=args.port, csrf=not args.no_csrf)
    elif args.version == "v4":
        backend = start_v4(page_size=args.page_size or None, data=args.size, port=args.port,
                           repeatable=args.repeatable, metadata=args.metadata)
    else:
        backend = start_v2(csrf=not args.no_csrf, data=args.size, port=args.port,
                           page_size=args.page_size or None, metadata=args.metadata)
    # Stop the backend on Ctrl-C and on SIGTERM alike (a background job may have SIGINT ignored).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with backend:
        print(backend.service_root, flush=True)
        try:
            backend.process.wait()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
