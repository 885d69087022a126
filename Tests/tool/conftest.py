"""Runs the offline-odata tool named by $OOD_TOOL (ctest sets it to the built tool)."""
import os
import subprocess

import pytest


@pytest.fixture
def tool():
    path = os.environ.get("OOD_TOOL")
    if not path:
        pytest.fail("OOD_TOOL is not set: run these tests through ctest or `make test`")

    def run(*arguments, **kwargs):
        return subprocess.run([path, *arguments], capture_output=True, text=True, timeout=120, **kwargs)

    return run
