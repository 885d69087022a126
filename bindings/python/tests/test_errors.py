import pytest

import offline_odata
from offline_odata import _capi
from offline_odata.errors import STATUS_EXCEPTIONS, OfflineODataError, error_for_status
from conftest import header_statuses


def test_the_table_matches_the_headers_enum():
    in_header = {pair for pair in header_statuses() if pair[0] != "OOD_OK"}
    assert set(STATUS_EXCEPTIONS) == in_header


def test_the_library_names_every_status_as_the_table_does():
    for (name, value) in STATUS_EXCEPTIONS:
        assert _capi.ood_status_name(value).decode() == name
    assert _capi.ood_status_name(0).decode() == "OOD_OK"


@pytest.mark.parametrize("key", list(STATUS_EXCEPTIONS))
def test_each_status_raises_its_class(key):
    name, value = key
    error = error_for_status(value, "message", offset=3)
    assert type(error) is STATUS_EXCEPTIONS[key]
    assert isinstance(error, OfflineODataError)
    assert error.status == value and error.status_name == name
    assert error.offset == 3 and error.message == "message"


def test_each_class_is_distinct_but_the_base():
    classes = list(STATUS_EXCEPTIONS.values())
    assert len(set(classes)) == len(classes)


def test_an_unknown_status_is_a_generic_error():
    error = error_for_status(999, "from the future")
    assert type(error) is OfflineODataError
    assert error.status_name == "OOD_UNKNOWN"
