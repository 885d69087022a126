"""The two builds `make bench-compare` measures: the working tree's, and BASE's, built from BASE's
own source in `.build-bench-base/<sha>/` (ignored by git) and kept there for the next comparison.

Both are release builds made the way `make cmake-build` makes them (the library and the tool with
the Swift runtime linked in, CMake's C benchmarks). offline-odata-benchmarks is built in the same
scratch folder with the same flags, so it reuses the compiled engine instead of compiling it again
(`make bench` builds it apart, in `.build-bench`, without -static-stdlib: absolute figures may
differ from make bench's a little; both sides of a comparison are built alike).
"""
from __future__ import annotations

import shutil
import subprocess
import tarfile
import io
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Build:
    label: str
    source: Path  # its bindings/python is the binding the Python drivers load
    scratch: Path  # SwiftPM's release scratch folder
    cmake: Path  # CMake's build folder

    @property
    def tool(self) -> Path:
        return self.scratch / "release" / "offline-odata"

    @property
    def library(self) -> Path:
        return self.scratch / "release" / "libofflineodata.so"

    @property
    def benchmarks(self) -> Path:
        return self.scratch / "release" / "offline-odata-benchmarks"

    @property
    def c_benchmarks(self) -> Path:
        return self.cmake / "Benchmarks"

    def require_benchmarks(self) -> Path:
        if not self.benchmarks.is_file():
            raise FileNotFoundError(f"{self.label}: no {self.benchmarks}")
        return self.benchmarks

    def missing(self) -> list[Path]:
        """The products a comparison needs that are not there."""
        needed = [self.tool, self.library, self.benchmarks, self.c_benchmarks / "ood_bench_call_overhead",
                  self.c_benchmarks / "ood_bench_read_api"]
        return [path for path in needed if not path.exists()]


def git(repository: Path, *arguments: str) -> str:
    return subprocess.run(["git", "-C", str(repository), *arguments], capture_output=True, text=True,
                          check=True).stdout.strip()


def resolve(repository: Path, revision: str) -> str:
    """The commit's full hash; a revision git does not know is an error that names it."""
    process = subprocess.run(["git", "-C", str(repository), "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}"],
                             capture_output=True, text=True, check=False)
    if process.returncode != 0:
        raise ValueError(f"BASE={revision} is not a commit of {repository}")
    return process.stdout.strip()


def build_benchmarks(source: Path, scratch: Path) -> None:
    """offline-odata-benchmarks in the library's scratch folder, with the library's flags."""
    subprocess.run(["swift", "build", "-c", "release", "--product", "offline-odata-benchmarks",
                    "--disable-build-manifest-caching", "--package-path", str(source), "--scratch-path", str(scratch),
                    "-Xswiftc", "-static-stdlib"], check=True)


def base_source(repository: Path, sha: str) -> Path:
    """BASE's tracked files, unpacked once into .build-bench-base/<sha>/src (git archive)."""
    folder = repository / ".build-bench-base" / sha
    source = folder / "src"
    stamp = folder / "source-complete"
    if not stamp.exists():
        shutil.rmtree(source, ignore_errors=True)
        source.mkdir(parents=True)
        archive = subprocess.run(["git", "-C", str(repository), "archive", "--format=tar", sha],
                                 capture_output=True, check=True).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(source, filter="tar")
        # The tool's dependency (swift-argument-parser) at the version the working tree resolved.
        resolved = repository / "Tools" / "Package.resolved"
        if resolved.exists():
            shutil.copyfile(resolved, source / "Tools" / "Package.resolved")
        stamp.write_text(sha + "\n")
    return source


def base_build(repository: Path, sha: str, prebuilt: Path | None) -> Build:
    """BASE's build: `prebuilt` (a checkout of BASE where `make cmake-build` ran) as it is, else
    built here in .build-bench-base/<sha>/src once and reused."""
    source = base_source(repository, sha)
    if prebuilt is not None:
        build = Build("base", prebuilt, prebuilt / ".build-release", prebuilt / "build")
        # make cmake-build does not build the Swift benchmarks: added to that checkout's scratch once.
        if not build.benchmarks.is_file():
            print(f"== building offline-odata-benchmarks in {prebuilt} (once)", flush=True)
            build_benchmarks(prebuilt, build.scratch)
        return Build("base", source, build.scratch, build.cmake)
    build = Build("base", source, source / ".build-release", source / "build")
    if build.missing():
        print(f"== building BASE {sha[:12]} in {source} (once; kept for the next comparison)", flush=True)
        subprocess.run(["cmake", "-S", str(source), "-B", str(build.cmake), "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                        f"-DOOD_SWIFT_SCRATCH={build.scratch}", "-DOOD_BUILD_TESTS=OFF"], check=True)
        subprocess.run(["cmake", "--build", str(build.cmake)], check=True)
        build_benchmarks(source, build.scratch)
    return build


def working_build(repository: Path, scratch: Path, cmake: Path) -> Build:
    """The working tree's build (make cmake-build's products), with offline-odata-benchmarks added."""
    build = Build("new", repository, scratch, cmake)
    build_benchmarks(repository, scratch)
    return build
