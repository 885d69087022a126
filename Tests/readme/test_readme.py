"""The README's quickstarts (issue 10, acceptance 2): each block marked `<!-- quickstart: PATH -->`
is that file byte for byte, every quickstart file has its block, and each block, as extracted from
the README, builds and runs against the real V4 sample service: it reads offline, creates its
agency offline and uploads it, and the service then has the agency.

    OOD_LIBRARY=.build-release/release/libofflineodata.so .venv/bin/python -m pytest -q Tests/readme

C and C++ are compiled with -Wall -Wextra -Werror against OOD_LIBRARY (default: the release build).
The Swift quickstart is its own package; `swift run` builds the engine into .build-quickstart
(minutes the first time).
"""
from __future__ import annotations

import difflib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path
from types import ModuleType

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
README = REPOSITORY / "README.md"
QUICKSTART = REPOSITORY / "Examples" / "quickstart"
SWIFT_PACKAGE = QUICKSTART / "swift"
LIBRARY = Path(os.environ.get("OOD_LIBRARY", REPOSITORY / ".build-release" / "release" / "libofflineodata.so")).resolve()

#: A marker line, then a fenced block: the block's text is group "code".
MARKED_BLOCK = re.compile(r"^<!-- quickstart: (?P<path>\S+) -->\n```(?P<language>[\w+]*)\n(?P<code>.*?)^```$",
                          re.S | re.M)
#: The fence language each kind of quickstart file is shown with.
LANGUAGE = {".c": "c", ".cpp": "cpp", ".py": "python", ".swift": "swift"}
#: The agency each quickstart creates: distinct, so no run refuses another's.
AGENCY = {"quickstart.c": ("99000101", "Quickstart C"), "quickstart.cpp": ("99000102", "Quickstart C++"),
          "quickstart.py": ("99000103", "Quickstart Python"), "main.swift": ("99000104", "Quickstart Swift")}


def _load(name: str, path: Path) -> ModuleType:
    """Imports a helper of another suite by path (those folders are not packages)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


backends = _load("ood_readme_backends", REPOSITORY / "Tests" / "backends" / "backends.py")
recording_proxy = _load("ood_readme_recording_proxy", REPOSITORY / "Tests" / "backends" / "recording_proxy.py")


def readme_text() -> str:
    return README.read_text(encoding="utf-8")


def marked_blocks() -> dict[str, tuple[str, str]]:
    """README path -> (fence language, code) of every marked block; a path marked twice fails."""
    blocks: dict[str, tuple[str, str]] = {}
    for match in MARKED_BLOCK.finditer(readme_text()):
        assert match["path"] not in blocks, f"{match['path']} has two blocks in README.md"
        blocks[match["path"]] = (match["language"], match["code"])
    return blocks


def quickstart_files() -> list[str]:
    """The quickstarts' sources and the Swift manifest, as repository paths."""
    found = []
    for path in sorted(QUICKSTART.rglob("*")):
        relative = path.relative_to(QUICKSTART)
        if path.is_file() and path.suffix in LANGUAGE and not any(part.startswith(".") for part in relative.parts):
            found.append(path.relative_to(REPOSITORY).as_posix())
    return found


def readme_code(path: str) -> str:
    """The quickstart as the README shows it (the tests run this text, not the file)."""
    blocks = marked_blocks()
    assert path in blocks, f"README.md has no block marked <!-- quickstart: {path} -->"
    return blocks[path][1]


# ------------------------------------------------------------------------ the README as text

def test_the_first_two_commands_are_make_demo_and_make_test():
    first_block = re.search(r"^```\w*\n(.*?)^```$", readme_text(), re.S | re.M)
    assert first_block, "README.md has no code block"
    commands = [line.split("#")[0].strip() for line in first_block[1].splitlines()]
    assert commands[:2] == ["make demo", "make test"]


def test_every_marked_block_is_its_file_byte_for_byte():
    blocks = marked_blocks()
    assert blocks, "README.md has no <!-- quickstart: PATH --> blocks"
    for path, (language, code) in blocks.items():
        file = REPOSITORY / path
        assert file.is_file(), f"README.md marks {path}, which does not exist"
        text = file.read_text(encoding="utf-8")
        if code != text:
            diff = "".join(difflib.unified_diff(text.splitlines(True), code.splitlines(True), path, "README.md"))
            pytest.fail(f"the README's copy of {path} differs from the file:\n{diff}")
        assert language == LANGUAGE[file.suffix], f"{path} is shown as ```{language}"


def test_every_quickstart_file_has_a_block():
    files = quickstart_files()
    assert len(files) == 5, files  # C, C++, Python, the Swift manifest and main.swift
    missing = sorted(set(files) - set(marked_blocks()))
    assert not missing, f"quickstarts the README does not show: {missing}"


def test_each_quickstart_creates_its_own_agency():
    for path in quickstart_files():
        name = Path(path).name
        if name in AGENCY:
            assert re.findall(r"9900\d{4}", readme_code(path)) == [AGENCY[name][0]], path


# ------------------------------------------------------------------------ running them

@pytest.fixture(scope="module")
def v4_server():
    server = backends.start_v4(data="small")
    yield server
    server.stop()


@pytest.fixture
def service(v4_server):
    """The V4 sample service, reset to its seed, behind a proxy that records what reached it."""
    v4_server.reset()
    proxy = recording_proxy.RecordingProxy(v4_server.service_root)
    yield v4_server, proxy
    proxy.stop()


@pytest.fixture(scope="module")
def library() -> Path:
    if not LIBRARY.is_file():
        pytest.fail(f"no library at {LIBRARY}: run `make cmake-build` or set OOD_LIBRARY")
    return LIBRARY


def get_json(url: str):
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def run(command: list[str], cwd: Path, timeout: float, env: dict | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=cwd, env={**os.environ, **(env or {})}, capture_output=True,
                            text=True, timeout=timeout)
    assert result.returncode == 0, f"{command[0]} exited {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result


def check_the_run(output: str, quickstart: str, service, cwd: Path) -> None:
    """What a run must have done: the read answered offline, the agency created and uploaded."""
    backend, proxy = service
    agencynum, name = AGENCY[quickstart]
    lines = {line.split(":", 1)[0]: line for line in output.splitlines() if ":" in line}
    assert "read offline" in lines, output
    new_york = get_json(backend.url("TravelagencyCollection?$filter=" + urllib.parse.quote(
        f"country eq 'US' and city eq 'New York' and agencynum ne '{agencynum}'") + "&$select=name"))["value"]
    assert len(new_york) >= 2
    for agency in new_york:
        assert agency["name"] in lines["read offline"], (agency["name"], lines["read offline"])
    assert "created offline" in lines, output
    assert lines.get("uploaded") == "uploaded: 1 sent, 0 refused", output

    sent = [(r.method, urllib.parse.unquote(r.path)) for r in proxy.requests]
    assert any(method == "GET" and "country eq 'US'" in path for method, path in sent), sent  # the download
    assert not [path for _, path in sent if "New York" in path], "the read went to the service"
    assert [path for method, path in sent if method == "POST"] == ["/TravelagencyCollection"], sent
    assert get_json(backend.url(f"TravelagencyCollection('{agencynum}')"))["name"] == name
    assert list(cwd.glob("quickstart-*.store")), "no store file in the working folder"


def compile_and_run(compiler: str, source: Path, library: Path, service, tmp_path: Path, *, argv: bool) -> str:
    program = tmp_path / source.stem
    run([compiler, "-Wall", "-Wextra", "-Werror", f"-I{REPOSITORY / 'include'}", str(source), f"-L{library.parent}",
         "-lofflineodata", f"-Wl,-rpath,{library.parent}", "-o", str(program)], tmp_path, 300)
    root = service[1].root
    if argv:
        return run([str(program), root], tmp_path, 300).stdout
    return run([str(program)], tmp_path, 300, {"OOD_SERVICE": root}).stdout


def test_the_c_quickstart_runs(service, library, tmp_path):
    source = tmp_path / "quickstart.c"
    source.write_text(readme_code("Examples/quickstart/quickstart.c"), encoding="utf-8")
    output = compile_and_run(os.environ.get("CC", "cc"), source, library, service, tmp_path, argv=True)
    check_the_run(output, "quickstart.c", service, tmp_path)


def test_the_cpp_quickstart_runs(service, library, tmp_path):
    source = tmp_path / "quickstart.cpp"
    source.write_text(readme_code("Examples/quickstart/quickstart.cpp"), encoding="utf-8")
    output = compile_and_run(os.environ.get("CXX", "c++"), source, library, service, tmp_path, argv=False)
    check_the_run(output, "quickstart.cpp", service, tmp_path)


def test_the_python_quickstart_runs(service, library, tmp_path):
    source = tmp_path / "quickstart.py"
    source.write_text(readme_code("Examples/quickstart/quickstart.py"), encoding="utf-8")
    root = service[1].root
    output = run([sys.executable, str(source)], tmp_path, 300, {
        "OOD_SERVICE": root, "OFFLINE_ODATA_LIBRARY": str(library),
        "PYTHONPATH": str(REPOSITORY / "bindings" / "python")}).stdout
    check_the_run(output, "quickstart.py", service, tmp_path)


def test_the_swift_quickstart_runs(service, tmp_path):
    # The package depends on the repository by a relative path, so it runs in place; the block
    # tests above hold it equal to the README.
    swift = shutil.which("swift")
    assert swift, "swift is not on PATH"
    root = service[1].root
    output = run([swift, "run", "--package-path", str(SWIFT_PACKAGE), "--scratch-path",
                  str(REPOSITORY / ".build-quickstart"), "quickstart", root], tmp_path, 1800).stdout
    check_the_run(output, "main.swift", service, tmp_path)
