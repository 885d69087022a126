"""pytest fixtures for the real test backends, shared by every suite that talks to them
(`Tests/backends`, `Tests/sync`): one V4 (odatapy) and one V2 (mock-sap, CSRF on) server per
module, each reset to the seed before every test. Import them into a conftest.py."""
from __future__ import annotations

import pytest

import backends

V4_PAGE_SIZE = 25


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


@pytest.fixture(scope="module")
def v4_repeatable_server():
    """The V4 backend with OASIS Repeatable Requests (`start_v4(repeatable=True)`)."""
    server = backends.start_v4(page_size=V4_PAGE_SIZE, data="small", repeatable=True)
    yield server
    server.stop()


@pytest.fixture
def v4_repeatable(v4_repeatable_server):
    v4_repeatable_server.reset()
    return v4_repeatable_server
