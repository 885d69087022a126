"""The code blocks and links of the README and the guides in docs/ (issue 10, acceptance 2; issue 32,
item 5). Every fenced block in README.md and docs/*.md has a marker line just before it that says
what it is, and a block without one fails:

- `<!-- quickstart: PATH -->`: the block is that file byte for byte; every quickstart file has its
  block (in one place), and each block, as extracted from its document, builds and runs against
  the real V4 sample service: it reads offline, creates its agency offline and uploads it, and the
  service then has the agency;
- `<!-- excerpt: PATH -->`: the block is consecutive lines of a quickstart (their common
  indentation removed) whose whole block is shown and run;
- `<!-- tool walk-through -->`: a shell session of the command-line tool, run here against the
  V4 sample service;
- `<!-- not run: REASON -->`: not runnable (a shell command that installs or starts a server, a
  fragment, a listing), with the reason.

Every relative link in them points to a file that exists (and, for `#anchor`, to a heading there).

    OOD_LIBRARY=.build-release/release/libofflineodata.so .venv/bin/python -m pytest -q Tests/readme

C and C++ are compiled with -Wall -Wextra -Werror against OOD_LIBRARY (default: the release build);
the tool is OOD_TOOL (default: offline-odata beside the library). The Swift quickstart is its own
package; `swift run` builds the engine into .build-quickstart (minutes the first time).
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
import textwrap
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
README = REPOSITORY / "README.md"
DOCS = REPOSITORY / "docs"
QUICKSTART = REPOSITORY / "Examples" / "quickstart"
SWIFT_PACKAGE = QUICKSTART / "swift"
LIBRARY = Path(os.environ.get("OOD_LIBRARY", REPOSITORY / ".build-release" / "release" / "libofflineodata.so")).resolve()
TOOL = Path(os.environ.get("OOD_TOOL", LIBRARY.parent / "offline-odata")).resolve()
#: The README's length, at most (issue 32: a newcomer finds the commands, not a wall).
README_MAX_LINES = 300

#: A marker line: `<!-- KIND -->` or `<!-- KIND: ARGUMENT -->`.
MARKER = re.compile(r"^<!-- (?P<kind>[a-z -]+?)(?:: (?P<argument>.*?))? -->$")
#: The kinds of marker, and whether they need an argument (a path, a reason).
MARKER_KINDS = {"quickstart": True, "excerpt": True, "tool walk-through": False, "not run": True}
#: A fence line opening or closing a block (at most three spaces in, as Markdown allows).
FENCE = re.compile(r"^ {0,3}```(?P<language>[\w+-]*)\s*$")
#: The fence language each kind of quickstart file is shown with.
LANGUAGE = {".c": "c", ".cpp": "cpp", ".py": "python", ".swift": "swift"}
#: The agency each quickstart creates: distinct, so no run refuses another's.
AGENCY = {"quickstart.c": ("99000101", "Quickstart C"), "quickstart.cpp": ("99000102", "Quickstart C++"),
          "quickstart.py": ("99000103", "Quickstart Python"), "main.swift": ("99000104", "Quickstart Swift")}
#: The sample service's root as the tool's walk-through writes it.
WALK_THROUGH_ROOT = "http://127.0.0.1:40123/"


def _load(name: str, path: Path) -> ModuleType:
    """Imports a helper of another suite by path (those folders are not packages)."""
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


backends = _load("ood_readme_backends", REPOSITORY / "Tests" / "backends" / "backends.py")
recording_proxy = _load("ood_readme_recording_proxy", REPOSITORY / "Tests" / "backends" / "recording_proxy.py")


def documents() -> list[Path]:
    """The README and every guide in docs/."""
    return [README, *sorted(DOCS.glob("*.md"))]


def readme_text() -> str:
    return README.read_text(encoding="utf-8")


def name(document: Path) -> str:
    return document.relative_to(REPOSITORY).as_posix()


@dataclass(frozen=True)
class Block:
    """One fenced code block of a document, with the marker line before it (None without one)."""
    document: Path
    line: int  # of the opening fence, from 1
    language: str
    code: str
    kind: str | None
    argument: str | None

    @property
    def where(self) -> str:
        return f"{name(self.document)}:{self.line}"


def code_blocks(document: Path) -> list[Block]:
    """Every fenced block of a document, in order; an unclosed fence fails."""
    lines = document.read_text(encoding="utf-8").split("\n")
    blocks, index = [], 0
    while index < len(lines):
        opening = FENCE.match(lines[index])
        if not opening:
            index += 1
            continue
        end = index + 1
        while end < len(lines) and not re.match(r"^ {0,3}```\s*$", lines[end]):
            end += 1
        assert end < len(lines), f"{name(document)}:{index + 1}: a code block that is never closed"
        marker = MARKER.match(lines[index - 1]) if index > 0 else None
        code = "".join(line + "\n" for line in lines[index + 1:end])
        blocks.append(Block(document, index + 1, opening["language"], code,
                            marker["kind"] if marker else None, marker["argument"] if marker else None))
        index = end + 1
    return blocks


def all_blocks() -> list[Block]:
    return [block for document in documents() for block in code_blocks(document)]


def marked_blocks() -> dict[str, Block]:
    """Quickstart path -> its block, over README and docs/; a path marked twice fails."""
    blocks: dict[str, Block] = {}
    for block in all_blocks():
        if block.kind == "quickstart":
            assert block.argument not in blocks, f"{block.argument} has two blocks: {blocks[block.argument].where}, {block.where}"
            blocks[block.argument] = block
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
    """The quickstart as the documentation shows it (the tests run this text, not the file)."""
    blocks = marked_blocks()
    assert path in blocks, f"no block in README.md or docs/ is marked <!-- quickstart: {path} -->"
    return blocks[path].code


# ------------------------------------------------------------------------ the documents as text

def test_the_first_two_commands_are_make_demo_and_make_test():
    blocks = code_blocks(README)
    assert blocks, "README.md has no code block"
    commands = [line.split("#")[0].strip() for line in blocks[0].code.splitlines()]
    assert commands[:2] == ["make demo", "make test"]


def test_the_readme_is_short():
    lines = readme_text().count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines, more than {README_MAX_LINES}"


def test_the_readme_links_every_guide():
    linked = {target.split("#")[0] for _, target in links(README)}
    missing = [name(guide) for guide in sorted(DOCS.glob("*.md")) if name(guide) not in linked]
    assert not missing, f"guides README.md does not link: {missing}"


def test_every_code_block_is_marked():
    unmarked = [block.where for block in all_blocks() if block.kind is None]
    assert not unmarked, ("code blocks with no marker line before them (<!-- quickstart: PATH -->, "
                          f"<!-- excerpt: PATH -->, <!-- tool walk-through -->, <!-- not run: REASON -->): {unmarked}")


def test_every_marker_is_known_and_complete():
    for block in all_blocks():
        if block.kind is None:
            continue
        assert block.kind in MARKER_KINDS, f"{block.where}: unknown marker <!-- {block.kind} -->"
        if MARKER_KINDS[block.kind]:
            assert block.argument and block.argument.strip(), f"{block.where}: <!-- {block.kind} --> needs what it names"
        else:
            assert block.argument is None, f"{block.where}: <!-- {block.kind} --> takes nothing after it"


def test_every_marked_block_is_its_file_byte_for_byte():
    blocks = marked_blocks()
    assert blocks, "README.md and docs/ have no <!-- quickstart: PATH --> blocks"
    for path, block in blocks.items():
        file = REPOSITORY / path
        assert file.is_file(), f"{block.where} marks {path}, which does not exist"
        text = file.read_text(encoding="utf-8")
        if block.code != text:
            diff = "".join(difflib.unified_diff(text.splitlines(True), block.code.splitlines(True), path, block.where))
            pytest.fail(f"the copy of {path} at {block.where} differs from the file:\n{diff}")
        assert block.language == LANGUAGE[file.suffix], f"{path} is shown as ```{block.language}"


def test_every_quickstart_file_has_a_block():
    files = quickstart_files()
    assert len(files) == 5, files  # C, C++, Python, the Swift manifest and main.swift
    missing = sorted(set(files) - set(marked_blocks()))
    assert not missing, f"quickstarts README.md and docs/ do not show: {missing}"


def test_every_excerpt_is_part_of_a_quickstart_shown_whole():
    excerpts = [block for block in all_blocks() if block.kind == "excerpt"]
    assert excerpts, "README.md shows no excerpt of a quickstart"
    shown = marked_blocks()
    for block in excerpts:
        assert block.argument in shown, f"{block.where}: {block.argument} is not shown whole (and run) anywhere"
        lines = (REPOSITORY / block.argument).read_text(encoding="utf-8").splitlines(True)
        count = len(block.code.splitlines())
        assert count > 0, f"{block.where}: an empty excerpt"
        assert any(textwrap.dedent("".join(lines[start:start + count])) == block.code
                   for start in range(len(lines) - count + 1)), \
            f"{block.where}: not consecutive lines of {block.argument}"
        assert block.language == LANGUAGE[Path(block.argument).suffix], f"{block.where} is shown as ```{block.language}"


def test_each_quickstart_creates_its_own_agency():
    for path in quickstart_files():
        name_ = Path(path).name
        if name_ in AGENCY:
            assert re.findall(r"9900\d{4}", readme_code(path)) == [AGENCY[name_][0]], path


def heading_anchors(document: Path) -> set[str]:
    """The anchors GitHub makes of a document's headings (lower case, punctuation dropped)."""
    anchors: set[str] = set()
    seen: dict[str, int] = {}
    in_code = False
    for line in document.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            in_code = not in_code
            continue
        heading = re.match(r"^#{1,6} +(.*?) *#*$", line)
        if in_code or not heading:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading[1].lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def links(document: Path) -> list[tuple[int, str]]:
    """(line, target) of every Markdown link outside code blocks and code spans."""
    found, in_code = [], False
    for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            in_code = not in_code
            continue
        if in_code:
            continue
        prose = re.sub(r"`[^`]*`", "", line)
        found += [(number, match[1]) for match in re.finditer(r"\]\(([^)\s]+)\)", prose)]
    return found


def test_every_relative_link_points_to_a_file():
    broken = []
    for document in documents():
        for line, target in links(document):
            if re.match(r"^[a-z]+:", target):
                continue  # http:, https:, mailto:
            path, _, anchor = target.partition("#")
            file = (document.parent / path).resolve() if path else document
            if not file.exists():
                broken.append(f"{name(document)}:{line}: {target} (no such file)")
            elif anchor and file.suffix == ".md" and anchor not in heading_anchors(file):
                broken.append(f"{name(document)}:{line}: {target} (no such heading)")
    assert not broken, "broken links:\n" + "\n".join(broken)


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


# ------------------------------------------------------------------------ the tool's walk-through

@pytest.fixture(scope="module")
def tool() -> Path:
    if not TOOL.is_file():
        pytest.fail(f"no tool at {TOOL}: run `make cmake-build` or set OOD_TOOL")
    return TOOL


def test_the_tool_walk_through_runs(service, tool, tmp_path):
    # The session as written, in a folder where its relative paths hold, with the test service's
    # root for the sample one's and the tool under test for `offline-odata`; every command must
    # succeed (`set -e`), and the agency it creates must reach the service.
    sessions = [block for block in all_blocks() if block.kind == "tool walk-through"]
    assert len(sessions) == 1, [block.where for block in sessions]
    session = sessions[0]
    assert WALK_THROUGH_ROOT in session.code, f"{session.where} does not name the sample service's root"
    backend, proxy = service
    (tmp_path / "Examples").symlink_to(REPOSITORY / "Examples")
    script = (f'set -e\noffline-odata() {{ "{tool}" "$@"; }}\n'
              + session.code.replace(WALK_THROUGH_ROOT, proxy.root))
    result = run(["bash", "-c", script], tmp_path, 600)
    assert (tmp_path / "travel.store").is_file()
    sent = [(r.method, urllib.parse.unquote(r.path)) for r in proxy.requests]
    assert any(method == "GET" and "country eq 'US'" in path for method, path in sent), sent  # the download
    assert not [path for _, path in sent if "city eq 'Boston'" in path], "the offline read went to the service"
    assert [path for method, path in sent if method == "POST"] == ["/TravelagencyCollection"], sent
    assert get_json(backend.url("TravelagencyCollection('99000001')"))["name"] == "Fly & Co"
