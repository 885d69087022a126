"""Fixtures for the backend probes: one V4 and one V2 server per module, reset before each test."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import backends  # noqa: E402

V4_PAGE_SIZE = 25


@pytest.fixture(scope="session")
def seed():
    """The generator's default data set ("small"), as the servers load it."""
    return backends.load_seed("small")


@pytest.fixture(scope="module")
def v4_server():
    server = backends.start_v4(page_size=V4_PAGE_SIZE, data="small")
    yield server
    server.stop()


@pytest.fixture
def v4(v4_server):
    v4_server.reset()
    return v4_server


@pytest.fixture(scope="module")
def v2_server():
    server = backends.start_v2(csrf=True, data="small")
    yield server
    server.stop()


@pytest.fixture
def v2(v2_server):
    v2_server.reset()
    return v2_server
