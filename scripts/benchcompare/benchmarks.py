"""The benchmarks `make bench-compare` runs, and how each runs against one build.

`shared` benchmarks run the working tree's driver (Benchmarks/python) against either build's tool,
library and Python binding, so only the engine differs. `own` benchmarks run each build's own
compiled benchmark program (offline-odata-benchmarks, the C programs), so they measure each
commit's benchmark source too; the comparison says so, and flags the ones whose source differs.
The 1,000,000- and 10,000,000-entity runs of `make bench-10m` stay out.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from benchcompare.builds import Build


@dataclass(frozen=True)
class Settings:
    """What every run needs besides the build: the working tree (its drivers), the knobs."""
    repository: Path
    fixtures: Path
    batch_changes: int = 1000
    compaction_changes: int = 2000
    compaction_rounds: int = 1
    download_sizes: str = "100000"


@dataclass(frozen=True)
class Benchmark:
    name: str
    driver: str  # "shared" or "own"
    sources: tuple[str, ...]  # what differs between the commits makes the comparison measure it too
    run: Callable[[Build, Settings], str] = field(compare=False)


class BenchmarkFailed(Exception):
    pass


def _run(arguments: list[str | Path], env: dict[str, str] | None = None) -> str:
    """Runs a command and returns its standard output; a failure carries the tail of its output."""
    process = subprocess.run([str(a) for a in arguments], capture_output=True, text=True, check=False,
                             env={**os.environ, **(env or {})})
    if process.returncode != 0:
        tail = "\n".join((process.stdout + process.stderr).splitlines()[-15:])
        raise BenchmarkFailed(f"{Path(str(arguments[0])).name} exited with {process.returncode}:\n{tail}")
    return process.stdout


def _driver(settings: Settings, script: str) -> Path:
    return settings.repository / "Benchmarks" / "python" / script


def _binding_env(build: Build) -> dict[str, str]:
    return {"OFFLINE_ODATA_LIBRARY": str(build.library), "PYTHONPATH": str(build.source / "bindings" / "python")}


def _swift(step: str) -> Callable[[Build, Settings], str]:
    def run(build: Build, settings: Settings) -> str:
        return _run([build.require_benchmarks(), step], env={"OOD_FIXTURES": str(settings.fixtures)})
    return run


def _call_overhead(build: Build, settings: Settings) -> str:
    return _run([build.c_benchmarks / "ood_bench_call_overhead"])


def _read_api(build: Build, settings: Settings) -> str:
    """The Swift store API read (it makes the store), then the same read through the C API."""
    with tempfile.TemporaryDirectory(prefix="ood-bench-compare-") as folder:
        store = Path(folder) / "read-api.store"
        swift = _run([build.require_benchmarks(), "read-api", store])
        median = next((line.split(": ")[1] for line in swift.splitlines()
                       if line.startswith("read-api swift median-ns: ")), None)
        if median is None:
            raise BenchmarkFailed(f"read-api printed no median:\n{swift}")
        return swift + _run([build.c_benchmarks / "ood_bench_read_api", store, median.strip()])


def _python(script: str, *arguments: Callable[[Build, Settings], object],
            env: Callable[[Build, Settings], dict[str, str]] = lambda b, s: {}) -> Callable[[Build, Settings], str]:
    """The working tree's driver `script`, with arguments and environment made from the build."""
    def run(build: Build, settings: Settings) -> str:
        return _run([sys.executable, _driver(settings, script), *(str(a(build, settings)) for a in arguments)],
                    env={**_binding_env(build), **env(build, settings)})
    return run


def _tool(build: Build, settings: Settings) -> Path:
    return build.tool


SWIFT_SOURCES = ("Benchmarks/OfflineODataBenchmarks",)

BENCHMARKS: tuple[Benchmark, ...] = (
    Benchmark("call-overhead", "own", ("Benchmarks/c/call_overhead.c", "Benchmarks/c/baseline_library.c"),
              _call_overhead),
    Benchmark("ctypes-call", "shared", (), _python("ctypes_call.py")),
    *(Benchmark(name, "own", SWIFT_SOURCES, _swift(name))
      for name in ("filter-parse", "filter-bind", "json", "metadata", "ingest", "write")),
    Benchmark("read-api", "own", (*SWIFT_SOURCES, "Benchmarks/c/read_api.c"), _read_api),
    Benchmark("read", "own", SWIFT_SOURCES, _swift("read")),
    Benchmark("load-memory", "shared", (), _python("load_memory.py", _tool, lambda b, s: 100000, lambda b, s: 1000000)),
    Benchmark("binding-read", "shared", (), _python("binding_read.py")),
    Benchmark("binding-vs-odatapy", "shared", (), _python("binding_vs_odatapy.py", _tool)),
    Benchmark("download", "shared", (), _python("download_vs_python.py", _tool,
                                                env=lambda b, s: {"OOD_DOWNLOAD_SIZES": s.download_sizes})),
    Benchmark("download-memory", "shared", (), _python("download_memory.py", _tool)),
    # Queued by each build's own offline-odata-benchmarks (queue-writes), uploaded by its tool.
    Benchmark("batch-upload", "own", SWIFT_SOURCES,
              _python("batch_upload.py", _tool, lambda b, s: b.require_benchmarks(), lambda b, s: s.batch_changes)),
    Benchmark("compaction", "shared", (), _python("compaction_upload.py", lambda b, s: s.compaction_changes,
                                                  lambda b, s: s.compaction_rounds)),
)


def select(names: str) -> list[Benchmark]:
    """The benchmarks named (space- or comma-separated), all when none; an unknown name is an error."""
    wanted = [name for name in names.replace(",", " ").split() if name]
    known = {benchmark.name: benchmark for benchmark in BENCHMARKS}
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise ValueError(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(known)}")
    return [known[name] for name in wanted] if wanted else list(BENCHMARKS)
