"""Runs the offline-odata tool named by $OOD_TOOL (ctest sets it to the built tool), and starts the
real V4 test backend (Tests/backends) for the tests that talk to a service."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPOSITORY / "Tests" / "backends"))

from backend_fixtures import v4, v4_server  # noqa: E402,F401


@pytest.fixture
def tool():
    path = os.environ.get("OOD_TOOL")
    if not path:
        pytest.fail("OOD_TOOL is not set: run these tests through ctest or `make test`")

    def run(*arguments, **kwargs):
        return subprocess.run([path, *map(str, arguments)], capture_output=True, text=True, timeout=120, **kwargs)

    return run


@pytest.fixture
def recording_proxy(v4):
    """A proxy in front of the V4 backend that keeps each request's method, path and
    Authorization header, so a test sees what credentials the tool sent."""
    from recording_proxy import RecordingProxy

    proxy = RecordingProxy(v4.service_root)
    yield proxy
    proxy.stop()
