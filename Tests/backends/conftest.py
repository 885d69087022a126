"""Fixtures for the backend probes: one V4 and one V2 server per module, reset before each test."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import backends  # noqa: E402
from backend_fixtures import V4_PAGE_SIZE, v2, v2_server, v4, v4_server, v4_repeatable, v4_repeatable_server  # noqa: E402,F401


@pytest.fixture(scope="session")
def seed():
    """The generator's default data set ("small"), as the servers load it."""
    return backends.load_seed("small")
