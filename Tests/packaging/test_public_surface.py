"""The Swift public API is what an app needs (issue 24): a plain `import OfflineOData` sees the store
API and the values it answers with, not the parser, binder, SQL or storage machinery, which are
`package`; what only the command-line tool needs is `@_spi(Tool) public`.

Each test type-checks a small file against the built module (`swiftc -typecheck`, about a second)
or reads its public symbols (`swift-symbolgraph-extract`). The module is the one `make cmake-build`
builds (`.build-release/release/Modules`), or set OOD_SWIFT_MODULES to another Modules folder
(`.build/debug/Modules` after `swift build`).

    OOD_SWIFT_MODULES=$PWD/.build-release/release/Modules .venv/bin/python -m pytest -q Tests/packaging/test_public_surface.py
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent / "public-surface"
ENGINE_SOURCES = REPOSITORY / "Sources" / "OfflineOData"

#: Declared in the engine, and none of an app's business: each must be unknown to a plain import.
INTERNALS = [
    # Query: the lexer, parser, syntax trees and binder
    "Lexer", "ODataURLParser", "ODataRequestSyntax", "ExpressionSyntax", "ODataBinder", "BoundRequest", "BoundExpression",
    # SQL and Storage: translation, schema, SQLite
    "SQLQuery", "StoreSchema", "EntitySetTable", "SQLiteConnection", "Statement", "StoreFile",
    # Values, HTTP, Metadata machinery
    "JSONReader", "JSONWriter", "HTTPTransport", "HTTPCancellation", "MetadataReader",
    # Store internals below ODataStore
    "LocalStore", "ServiceClient", "LocalReader", "RequestRouter", "ResolvedRequest", "UnboundPathResource", "WriteOutcome",
]

#: What the tool reaches through `@_spi(Tool) import` (tool.swift uses each).
TOOL_SPI = ["MetadataReader", "ODataURLParser", "BoundRequest", "ODataBinder", "StoreDescription", "JSONWriter"]


def modules_folder() -> Path:
    chosen = os.environ.get("OOD_SWIFT_MODULES")
    folder = Path(chosen) if chosen else REPOSITORY / ".build-release" / "release" / "Modules"
    if not (folder / "OfflineOData.swiftmodule").exists():
        pytest.fail(f"no OfflineOData.swiftmodule in {folder}: run `make cmake-build` (or `swift build` and set "
                    f"OOD_SWIFT_MODULES={REPOSITORY / '.build' / 'debug' / 'Modules'})")
    return folder


def search_paths() -> list[str]:
    """The built modules and the engine's C modules (imported `internal`, still loaded by a client)."""
    pkg_config = shutil.which("pkg-config")
    if pkg_config is None:
        pytest.fail("pkg-config is not on PATH (it gives libxml2's include folder)")
    libxml2 = subprocess.run([pkg_config, "--cflags-only-I", "libxml-2.0"], capture_output=True, text=True, check=True)
    paths = ["-I", str(modules_folder())]
    for module in ("CSQLite", "CLibXML2", "CCurl"):
        paths += ["-I", str(REPOSITORY / "Sources" / module)]
    # The encryption VFS is a C target of the package: SwiftPM writes its module map in the build.
    cipher_map = modules_folder().parent / "CStoreCipher.build" / "module.modulemap"
    if not cipher_map.exists():
        pytest.fail(f"no {cipher_map}: the build has no CStoreCipher module (run `make cmake-build`)")
    paths += ["-Xcc", f"-fmodule-map-file={cipher_map}"]
    for flag in libxml2.stdout.split():
        paths += ["-Xcc", flag]
    return paths


def typecheck(source: Path) -> subprocess.CompletedProcess[str]:
    swiftc = shutil.which("swiftc")
    if swiftc is None:
        pytest.fail("swiftc is not on PATH")
    return subprocess.run([swiftc, "-typecheck", *search_paths(), str(source)], capture_output=True, text=True, timeout=300)


def test_an_app_uses_the_whole_store_api_with_a_plain_import():
    result = typecheck(HERE / "app.swift")
    assert result.returncode == 0, result.stderr


def test_the_engine_internals_are_unknown_to_a_plain_import(tmp_path):
    engine = "\n".join(path.read_text(encoding="utf-8") for path in ENGINE_SOURCES.rglob("*.swift"))
    undeclared = [name for name in INTERNALS
                  if not re.search(rf"\b(struct|class|enum|protocol|actor|typealias) {name}\b", engine)]
    assert not undeclared, f"not declared in the engine (renamed?), so this test would prove nothing for them: {undeclared}"
    source = tmp_path / "internals.swift"
    source.write_text("import OfflineOData\n" + "".join(f"_ = {name}.self\n" for name in INTERNALS), encoding="utf-8")
    result = typecheck(source)
    assert result.returncode != 0, "a plain import sees every one of: " + ", ".join(INTERNALS)
    seen = [name for name in INTERNALS if f"cannot find '{name}' in scope" not in result.stderr]
    assert not seen, f"visible to a plain import: {seen}\n{result.stderr}"


def test_the_tool_reaches_its_spi_and_a_plain_import_does_not(tmp_path):
    with_spi = typecheck(HERE / "tool.swift")
    assert with_spi.returncode == 0, with_spi.stderr
    plain = tmp_path / "tool.swift"
    plain.write_text((HERE / "tool.swift").read_text(encoding="utf-8").replace("@_spi(Tool) import", "import"), encoding="utf-8")
    result = typecheck(plain)
    assert result.returncode != 0
    seen = [name for name in TOOL_SPI if f"cannot find '{name}' in scope" not in result.stderr
            and f"cannot find type '{name}' in scope" not in result.stderr]
    assert not seen, f"the tool's SPI is visible without @_spi(Tool): {seen}\n{result.stderr}"
    assert "'jsonText' is inaccessible due to '@_spi' protection level" in result.stderr


def test_the_public_names_are_the_allow_list(tmp_path):
    extract = shutil.which("swift-symbolgraph-extract")
    if extract is None:
        pytest.fail("swift-symbolgraph-extract is not on PATH (it comes with the Swift toolchain)")
    result = subprocess.run([extract, "-module-name", "OfflineOData", "-target", target_triple(), *search_paths(),
                             "-minimum-access-level", "public", "-output-dir", str(tmp_path)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    graph = json.loads((tmp_path / "OfflineOData.symbols.json").read_text(encoding="utf-8"))
    public = {symbol["pathComponents"][0] for symbol in graph["symbols"]
              if len(symbol["pathComponents"]) == 1 and not symbol.get("spi", False)}
    allowed = {line.strip() for line in (HERE / "public-types.txt").read_text(encoding="utf-8").splitlines()
               if line.strip() and not line.startswith("#")}
    assert public - allowed == set(), (f"public but not in {HERE / 'public-types.txt'}: {sorted(public - allowed)}; "
                                       "make it package (or @_spi(Tool) public), or add it there if an app needs it")
    assert allowed - public == set(), f"in public-types.txt but not public: {sorted(allowed - public)}"


def target_triple() -> str:
    """The host's target triple, as swiftc prints it."""
    result = subprocess.run([shutil.which("swiftc") or "swiftc", "-print-target-info"], capture_output=True, text=True, check=True)
    return json.loads(result.stdout)["target"]["triple"]
