"""`make bench-compare BASE=<rev>`: the benchmarks of the working tree's build against BASE's, in
the same run, alternating (BASE then the working tree in one round, the other way in the next) so
that the machine's drift hits both. For every figure both builds give: the two medians over the
rounds, their ratio (new / base), and WORSE where the working tree is more than 5% worse. Exits 1
when a figure is flagged or a benchmark fails on the working tree, 2 on a bad argument.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchcompare import builds, figures  # noqa: E402
from benchcompare.benchmarks import BenchmarkFailed, Settings, select  # noqa: E402


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the commit to compare with (any git revision)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--benches", default="", help="a subset, space- or comma-separated (default: all)")
    parser.add_argument("--scratch", type=Path, required=True, help="the working tree's SwiftPM release scratch")
    parser.add_argument("--build-dir", type=Path, required=True, help="the working tree's CMake build folder")
    parser.add_argument("--base-build", type=Path, default=None,
                        help="a checkout of BASE where make cmake-build ran, used instead of building BASE here")
    parser.add_argument("--fixtures", type=Path, required=True)
    parser.add_argument("--batch-changes", type=int, default=1000)
    parser.add_argument("--compaction-changes", type=int, default=2000)
    parser.add_argument("--download-sizes", default="100000", help="download_vs_python.py's OOD_DOWNLOAD_SIZES")
    return parser.parse_args()


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} cores)"


def source_change(repository: Path, sha: str, paths: tuple[str, ...]) -> str:
    """How the benchmark's own source differs between BASE and the working tree ("" if it does not):
    git's short statistics, so that a rename can be told from a changed measurement at a glance."""
    if not paths:
        return ""
    return builds.git(repository, "diff", "--shortstat", sha, "--", *paths)


def main() -> int:
    options = arguments()
    repository = Path(__file__).resolve().parents[1]
    try:
        if options.rounds < 1:
            raise ValueError("ROUNDS must be at least 1")
        chosen = select(options.benches)
        sha = builds.resolve(repository, options.base)
    except ValueError as error:
        print(f"bench-compare: {error}", file=sys.stderr)
        return 2
    if options.base_build is not None and not options.base_build.is_dir():
        print(f"bench-compare: BASE_BUILD {options.base_build} is not a folder", file=sys.stderr)
        return 2
    if options.base_build is not None:
        checkout = subprocess.run(["git", "-C", str(options.base_build), "rev-parse", "HEAD"], capture_output=True,
                                  text=True, check=False).stdout.strip()
        if checkout and checkout != sha:
            print(f"bench-compare: BASE_BUILD {options.base_build} is at {checkout[:12]}, not BASE {sha[:12]}",
                  file=sys.stderr)
            return 2
    try:
        base = builds.base_build(repository, sha, options.base_build)
        new = builds.working_build(repository, options.scratch, options.build_dir)
    except subprocess.CalledProcessError as error:
        print(f"bench-compare: a build failed ({' '.join(map(str, error.cmd))}); its output is above", file=sys.stderr)
        return 2
    for build in (base, new):
        for path in build.missing():
            print(f"note: {build.label} has no {path}: the benchmarks that need it are reported as failed")
    settings = Settings(repository=repository, fixtures=options.fixtures, batch_changes=options.batch_changes,
                        compaction_changes=options.compaction_changes, download_sizes=options.download_sizes)
    head = builds.git(repository, "rev-parse", "--short=12", "HEAD")
    dirty = " + uncommitted changes" if builds.git(repository, "status", "--porcelain", "--untracked-files=no") else ""

    print(f"== bench-compare: base {sha[:12]} against the working tree ({head}{dirty}), {options.rounds} round(s)")
    print(f"   start: {load()}", flush=True)
    started = time.monotonic()
    outputs = repository / ".build-bench-base" / "last-run"
    shutil.rmtree(outputs, ignore_errors=True)
    outputs.mkdir(parents=True)
    runs: dict[str, dict[str, list[list[figures.Figure]]]] = {b.name: {"base": [], "new": []} for b in chosen}
    failures: dict[str, dict[str, str]] = {b.name: {} for b in chosen}
    for round_number in range(options.rounds):
        order = (base, new) if round_number % 2 == 0 else (new, base)
        for benchmark in chosen:
            for build in order:
                print(f"-- round {round_number + 1}: {benchmark.name} ({build.label})", end="", flush=True)
                run_started = time.monotonic()
                try:
                    output = benchmark.run(build, settings)
                except (BenchmarkFailed, FileNotFoundError, OSError) as error:
                    failures[benchmark.name][build.label] = str(error)
                    print(f": failed: {error}", flush=True)
                    continue
                print(f": {time.monotonic() - run_started:.0f} s", flush=True)
                (outputs / f"{benchmark.name}.{build.label}.{round_number + 1}.txt").write_text(output, encoding="utf-8")
                runs[benchmark.name][build.label].append(figures.parse_output(output))
    minutes = (time.monotonic() - started) / 60

    print(f"\n== bench-compare results: base {sha[:12]} against the working tree ({head}{dirty}); "
          f"medians of {options.rounds} round(s), ratio = new / base, WORSE = more than "
          f"{figures.THRESHOLD:.0%} worse than base")
    flagged = 0
    for benchmark in chosen:
        if benchmark.driver == "shared":
            how = "the working tree's driver against both builds"
        else:
            how = "each build's own benchmark program, from its own source"
            change = source_change(repository, sha, benchmark.sources)
            if change:
                how += (f"; SOURCE DIFFERS between base and the working tree ({change} in {', '.join(benchmark.sources)}):"
                        " the comparison measures that change too")
        print(f"{benchmark.name} ({how})")
        for label, message in failures[benchmark.name].items():
            lines = message.splitlines()
            print(f"  FAILED on {label}: {lines[0]} {lines[-1] if len(lines) > 1 else ''} (the whole message above)")
        comparisons = figures.compare(runs[benchmark.name]["base"], runs[benchmark.name]["new"])
        for row in figures.format_rows(comparisons):
            print(row)
        flagged += sum(1 for comparison in comparisons if comparison.worse)
    print(f"== {flagged} figure(s) more than {figures.THRESHOLD:.0%} worse; {minutes:.1f} minutes of benchmarks")
    print(f"   start load was above; end: {load()}; each run's output in {outputs}")
    new_failures = [name for name, failed in failures.items() if "new" in failed]
    if new_failures:
        print(f"== failed on the working tree: {', '.join(new_failures)}")
    return 1 if flagged or new_failures else 0


if __name__ == "__main__":
    sys.exit(main())
