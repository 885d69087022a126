"""Column decoders (values.COLUMN_DECODERS): a property of a flat V4 page converted in C gives the
same Python values as its type's decoder value by value, and leaves to that decoder every column
it cannot decide alone (V2 dates, naive times, nulls, values that are no text)."""
import datetime
from decimal import Decimal

import pytest

from offline_odata import AnswerKind, AnswerShape, Entity
from offline_odata.schema import Schema
from offline_odata.values import COLUMN_DECODERS, DECODERS, column_decoder_for

UTC = datetime.timezone.utc

COLUMNS = {
    "Edm.Decimal": [1, "2.50", Decimal("3.125"), 4.5],
    "Edm.Double": [1, "INF", 2.5, Decimal("0.25")],
    "Edm.Single": ["NaN", 3],
    "Edm.Int64": ["9223372036854775807", 7],
    "Edm.Date": ["2024-02-29", "1999-12-31"],
    "Edm.DateTimeOffset": ["2024-02-29T12:00:00Z", "2024-02-29T12:00:00.1234567+02:00"],
    "Edm.DateTime": ["2001-01-01T00:00:00Z"],
}


@pytest.mark.parametrize("type_name", sorted(COLUMNS))
def test_a_column_decodes_as_its_decoder_does_value_by_value(type_name):
    values = COLUMNS[type_name]
    decoded = column_decoder_for(type_name)(values)
    expected = [DECODERS[type_name](value) for value in values]
    assert [type(value) for value in decoded] == [type(value) for value in expected]
    assert [str(value) for value in decoded] == [str(value) for value in expected]


@pytest.mark.parametrize("type_name, values", [
    ("Edm.DateTimeOffset", ["2024-02-29T12:00:00Z", "/Date(1709208000000)/"]),  # V2 text
    ("Edm.DateTimeOffset", ["2024-02-29T12:00:00"]),  # naive: the decoder makes it UTC
    ("Edm.DateTime", [12]),  # no text
    ("Edm.Date", ["/Date(1709208000000)/"]),
    ("Edm.Decimal", ["not a number"]),
    ("Edm.Int64", ["1.5"]),
])
def test_a_column_it_cannot_decide_is_left_to_the_decoder(type_name, values):
    assert COLUMN_DECODERS[type_name](values) is None


def test_types_without_a_builtin_have_no_column_decoder():
    assert column_decoder_for("Edm.Guid") is None
    assert column_decoder_for("Edm.Binary") is None
    assert column_decoder_for("Edm.String") is None


MODEL = {"entitySets": [{"name": "Readings", "entityType": "N.Reading", "properties": [
    {"name": "ID", "type": "Edm.Int32"}, {"name": "At", "type": "Edm.DateTimeOffset"},
    {"name": "Amount", "type": "Edm.Decimal"}, {"name": "Day", "type": "Edm.Date"}]}]}
SHAPE = AnswerShape(AnswerKind.COLLECTION, "Readings", "N.Reading")


def page(rows):
    import json
    return json.dumps({"@odata.context": "$metadata#Readings", "value": rows}).encode()


def test_a_flat_page_is_typed_the_same_through_columns_and_value_by_value():
    rows = [{"ID": 1, "At": "2024-02-29T12:00:00Z", "Amount": 5, "Day": "2024-02-29"},
            {"ID": 2, "At": "2024-03-01T08:30:00+01:00", "Amount": 0.5, "Day": "2024-03-01"}]
    typed = Schema(MODEL, v2=False).decode(page(rows), "application/json", SHAPE)
    assert all(type(entity) is Entity for entity in typed)
    assert typed[0]["At"] == datetime.datetime(2024, 2, 29, 12, tzinfo=UTC)
    assert typed[1]["At"].utcoffset() == datetime.timedelta(hours=1)
    assert typed[0]["Amount"] == Decimal(5) and type(typed[0]["Amount"]) is Decimal
    assert typed[1]["Amount"] == Decimal("0.5") and type(typed[1]["Amount"]) is Decimal
    assert typed[1]["Day"] == datetime.date(2024, 3, 1)


def test_nulls_naive_times_and_missing_properties_keep_the_value_by_value_answer():
    rows = [{"ID": 1, "At": None, "Amount": None, "Day": None},
            {"ID": 2, "At": "2024-02-29T12:00:00", "Amount": "1.25", "Day": "2024-02-29"},
            {"ID": 3}]
    typed = Schema(MODEL, v2=False).decode(page(rows), "application/json", SHAPE)
    assert typed[0] == {"ID": 1, "At": None, "Amount": None, "Day": None}
    assert typed[1]["At"] == datetime.datetime(2024, 2, 29, 12, tzinfo=UTC)  # naive read as UTC
    assert typed[1]["Amount"] == Decimal("1.25") and typed[1]["Day"] == datetime.date(2024, 2, 29)
    assert typed[2] == {"ID": 3}


def test_a_bad_value_in_a_column_still_names_its_property():
    rows = [{"ID": 1, "At": "2024-02-29T12:00:00Z"}, {"ID": 2, "At": "yesterday"}]
    with pytest.raises(ValueError, match=r"Readings\.At: 'yesterday' is not a Edm.DateTimeOffset value"):
        Schema(MODEL, v2=False).decode(page(rows), "application/json", SHAPE)
