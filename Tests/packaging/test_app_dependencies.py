"""An app that depends on the engine fetches and builds nothing else (issue 24): the engine's
package has no dependencies, and the command-line tool, which needs swift-argument-parser, is the
package in Tools/. A tiny app package that depends on the engine by path is made in a temporary
folder, and SwiftPM's own dependency graph of it is read.

    .venv/bin/python -m pytest -q Tests/packaging
"""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]

APP_MANIFEST = """// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "tinyapp",
    dependencies: [.package(name: "OfflineOData", path: "{repository}")],
    targets: [
        .executableTarget(name: "tinyapp", dependencies: [.product(name: "OfflineOData", package: "OfflineOData")]),
    ]
)
"""


def swift_package(arguments: list[str], package: Path, scratch: Path) -> str:
    swift = shutil.which("swift")
    if swift is None:
        pytest.fail("swift is not on PATH")
    result = subprocess.run([swift, "package", "--package-path", str(package), "--scratch-path", str(scratch), *arguments],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"swift package {' '.join(arguments)} exited {result.returncode}\n{result.stdout}\n{result.stderr}"
    return result.stdout


def identities(node: dict) -> set[str]:
    """Every package identity in a `show-dependencies --format json` tree, below its root."""
    found: set[str] = set()
    for dependency in node.get("dependencies", []):
        found.add(dependency["identity"])
        found |= identities(dependency)
    return found


def test_an_app_depending_on_the_engine_gets_no_other_package(tmp_path):
    app = tmp_path / "tinyapp"
    (app / "Sources" / "tinyapp").mkdir(parents=True)
    (app / "Package.swift").write_text(APP_MANIFEST.format(repository=REPOSITORY), encoding="utf-8")
    (app / "Sources" / "tinyapp" / "main.swift").write_text(
        "import OfflineODataFoundation\nprint(ODataError.Code.busy)\n", encoding="utf-8")
    graph = json.loads(swift_package(["show-dependencies", "--format", "json"], app, tmp_path / "scratch"))
    found = identities(graph)
    assert len(found) == 1, found  # the engine alone
    assert not [identity for identity in found if "argument-parser" in identity], found
    assert not (tmp_path / "scratch" / "checkouts").exists() or not list((tmp_path / "scratch" / "checkouts").iterdir())


def test_the_engine_package_declares_no_dependency_and_the_tool_package_does(tmp_path):
    engine = json.loads(swift_package(["dump-package"], REPOSITORY, tmp_path / "engine"))
    assert engine["dependencies"] == []
    assert "offline-odata" not in [product["name"] for product in engine["products"]]
    tools = json.loads(swift_package(["dump-package"], REPOSITORY / "Tools", tmp_path / "tools"))
    locations = json.dumps(tools["dependencies"])
    assert "swift-argument-parser" in locations
    assert [product["name"] for product in tools["products"]] == ["offline-odata"]
