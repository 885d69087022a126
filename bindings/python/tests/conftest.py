"""Shared fixtures of the binding's tests."""
import os
import re

import pytest

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
HEADER = os.path.join(REPOSITORY, "include", "offline_odata.h")


def header_statuses():
    """The (name, value) pairs of the ood_status enum, read from the header."""
    with open(HEADER, encoding="utf-8") as f:
        text = f.read()
    body = re.search(r"typedef enum ood_status \{(.*?)\} ood_status;", text, re.S).group(1)
    return [(name, int(value)) for name, value in re.findall(r"\b(OOD_[A-Z_]+) = (\d+)", body)]


@pytest.fixture
def store_path(tmp_path):
    return str(tmp_path / "test.store")
