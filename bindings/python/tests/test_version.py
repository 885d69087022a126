import re

import offline_odata
from conftest import HEADER


def test_version_is_the_headers_version():
    with open(HEADER, encoding="utf-8") as f:
        header_version = re.search(r'#define OOD_VERSION "([^"]+)"', f.read()).group(1)
    assert offline_odata.version() == header_version


def test_version_number_matches_the_version_string():
    major, minor, patch = (int(part) for part in offline_odata.version().split("."))
    assert offline_odata.version_number() == major * 1_000_000 + minor * 1_000 + patch
