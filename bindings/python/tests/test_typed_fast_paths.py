"""The fast paths of typed reads (issue 23) give what the JSON says, typed as the general path types it:
V4 collections without expanded navigation converted a property at a time, values already of
their Python type left alone, the JSON scanner called directly."""
import datetime
import json
from decimal import Decimal

import pytest

from offline_odata import AnswerKind, AnswerShape, Entity, Mode, Store
from offline_odata._fast_json import fast_loads
from offline_odata.schema import Schema
from offline_odata.values import DECODERS, typed_class_of
from conftest import US_AGENCIES, backends

UTC = datetime.timezone.utc

NUMBERS = """<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
  <edmx:DataServices>
    <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="Numbers">
      <EntityType Name="Reading">
        <Key><PropertyRef Name="ID"/></Key>
        <Property Name="ID" Type="Edm.Int64" Nullable="false"/>
        <Property Name="Ratio" Type="Edm.Double"/>
        <Property Name="Amount" Type="Edm.Decimal" Precision="20" Scale="4"/>
        <Property Name="At" Type="Edm.DateTimeOffset"/>
        <Property Name="Label" Type="Edm.String"/>
      </EntityType>
      <EntityContainer Name="Container"><EntitySet Name="Readings" EntityType="Numbers.Reading"/></EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>
"""


#: Whole numbers for a Double and a Decimal: JSON may write them as integers, which must still be typed.
SEED = {"Readings": [
    {"ID": 2 ** 62 + 1, "Ratio": 2.0, "Amount": 5, "At": "2024-02-29T12:00:00Z", "Label": "whole numbers"},
    {"ID": 7, "Ratio": 0.25, "Amount": "0.1234", "At": None, "Label": None}]}


@pytest.fixture(scope="module")
def numbers_service(tmp_path_factory):
    """odatapy serving the NUMBERS model with SEED."""
    metadata = tmp_path_factory.mktemp("numbers") / "numbers.xml"
    metadata.write_text(NUMBERS, encoding="utf-8")
    server = backends.start_v4_model(metadata, SEED)
    yield server
    server.stop()


@pytest.fixture
def flat_calls(monkeypatch):
    """How often the flat path ran (the real method, counted)."""
    calls = []
    original = Schema._flat_entities

    def counted(self, items, table, etags):
        calls.append(len(items))
        return original(self, items, table, etags)

    monkeypatch.setattr(Schema, "_flat_entities", counted)
    return calls


def expected_entities(store, url):
    """What ``url`` answers, typed straight from its raw JSON by each property's decoder: the oracle."""
    entity_set = url.split("?", 1)[0]
    types = {prop["name"]: prop["type"] for found in store.metadata()["entitySets"] if found["name"] == entity_set
             for prop in found["properties"]}
    entities = []
    for raw in json.loads(store.get(url, raw=True), parse_float=Decimal)["value"]:
        etag = raw.pop("@odata.etag", None)
        typed = {name: value if value is None or types[name] not in DECODERS else DECODERS[types[name]](value)
                 for name, value in raw.items()}
        entities.append((typed, etag))
    return entities


def assert_same_typed(entities, expected):
    assert len(entities) == len(expected) > 0
    for entity, (typed, etag) in zip(entities, expected):
        assert isinstance(entity, Entity) and entity == typed and entity.etag == etag
        assert {name: type(value) for name, value in entity.items()} == {
            name: type(value) for name, value in typed.items()}
        assert not [key for key in entity if "@" in key]


@pytest.mark.parametrize("url", ["TravelagencyCollection", "FlightCollection?$orderby=carrid,connid,fldate&$top=5"])
def test_collections_of_the_v4_service_take_the_flat_path_online_and_offline(v4, tmp_path, flat_calls, url):
    with Store(service_root=v4.service_root, mode=Mode.ONLINE) as online:
        assert_same_typed(online.entities(url), expected_entities(online, url))
    with Store(tmp_path / "v4.store", service_root=v4.service_root, mode=Mode.OFFLINE,
               defining_requests={"Agencies": "TravelagencyCollection", "Flights": "FlightCollection"}) as offline:
        offline.download()
        assert_same_typed(offline.entities(url), expected_entities(offline, url))
    assert len(flat_calls) == 2 and flat_calls[0] > 0  # both reads went the flat way


def test_an_expanded_navigation_or_an_offline_state_takes_the_general_path(v4, tmp_path, flat_calls):
    with Store(tmp_path / "v4.store", service_root=v4.service_root,
               defining_requests={"Agencies": US_AGENCIES, "Flights": "FlightCollection",
                                  "Bookings": "BookingCollection"}) as store:
        flights = store.entities("FlightCollection?$top=2&$expand=FlightBookings")
        assert flat_calls == []
        assert isinstance(flights[0]["FlightBookings"][0], Entity)
        assert isinstance(flights[0]["FlightBookings"][0]["forcuram"], Decimal)
        agency = store.entities(US_AGENCIES)[0]
        assert len(flat_calls) == 1 and isinstance(agency["creditlimit"], Decimal) and agency.etag
        store.update(f"TravelagencyCollection('{agency['agencynum']}')", {"name": "Changed"})
        changed = [found for found in store.entities(US_AGENCIES) if found["agencynum"] == agency["agencynum"]]
        assert len(flat_calls) == 1  # the offline state annotation sends the answer the general way
        assert changed[0].has_pending_changes and changed[0]["name"] == "Changed"
        assert isinstance(changed[0]["creditlimit"], Decimal) and not [key for key in changed[0] if "@" in key]


def test_values_not_yet_of_their_python_type_are_decoded_and_the_others_left_as_parsed(
        numbers_service, tmp_path, flat_calls):
    with Store(tmp_path / "numbers.store", service_root=numbers_service.service_root,
               defining_requests={"Readings": "Readings"}) as offline, \
            Store(service_root=numbers_service.service_root, mode=Mode.ONLINE) as online:
        for store in (offline, online):
            second, first = store.entities("Readings?$orderby=ID")
            assert type(first["Ratio"]) is float and first["Ratio"] == 2.0
            assert type(first["Amount"]) is Decimal and first["Amount"] == 5
            assert first["ID"] == 2 ** 62 + 1 and first["At"] == datetime.datetime(2024, 2, 29, 12, tzinfo=UTC)
            assert second == {"ID": 7, "Ratio": 0.25, "Amount": Decimal("0.1234"), "Label": None, "At": None}
        assert flat_calls == [2, 2]
        schema = Schema(offline.metadata(), False)
    # A service answering IEEE754Compatible sends Int64 and Decimal as strings, beside numbers and ETags.
    body = json.dumps({"@odata.context": "$metadata#Readings", "value": [
        {"@odata.etag": 'W/"1"', "ID": "9007199254740993", "Ratio": "INF", "Amount": "1.50", "At": None, "Label": "a"},
        {"ID": 3, "Ratio": 1, "Amount": 2, "At": "2021-07-15T21:13:53.5350000Z", "Label": "b"}]}).encode()
    one, two = schema.decode(body, "application/json", AnswerShape(AnswerKind.COLLECTION, "Readings"))
    assert flat_calls == [2, 2, 2]
    assert one == {"ID": 9007199254740993, "Ratio": float("inf"), "Amount": Decimal("1.50"), "At": None, "Label": "a"}
    assert one.etag == 'W/"1"' and two.etag is None and "@odata.etag" not in one
    assert type(two["Ratio"]) is float and type(two["Amount"]) is Decimal
    assert two["At"] == datetime.datetime(2021, 7, 15, 21, 13, 53, 535000, tzinfo=UTC)


def test_a_value_its_decoder_refuses_names_its_property_on_both_paths(tmp_path):
    with Store(tmp_path / "numbers.store", metadata=NUMBERS, mode=Mode.OFFLINE) as store:
        schema = Schema(store.metadata(), False)
    good = {"ID": 1, "Ratio": 1.5, "Amount": 1, "At": "2021-07-15T21:13:53Z", "Label": "fine"}
    bad = {"ID": 2, "Ratio": 1.5, "Amount": "a lot", "At": "2021-07-15T21:13:53Z", "Label": "bad"}
    collection = json.dumps({"value": [good, bad]}).encode()
    with pytest.raises(ValueError, match=r"Readings\.Amount: 'a lot' is not a Edm\.Decimal value"):
        schema.decode(collection, "application/json", AnswerShape(AnswerKind.COLLECTION, "Readings"))
    # One entity (the general path), its date converted before the refused decimal.
    with pytest.raises(ValueError, match=r"Readings\.Amount: 'a lot' is not a Edm\.Decimal value"):
        schema.decode(json.dumps(bad).encode(), "application/json", AnswerShape(AnswerKind.ENTITY, "Readings"))


@pytest.mark.parametrize("text", ['{"a": [1, 2.5, "x", null, true]}', "[]", '  {"a": 1}', '{"a": 1}  \n', '"text"',
                                  "12", "", "   ", '{"a": 1} x', '{"a": ', "[1,]", '{"a": 1}{"b": 2}'])
def test_fast_loads_gives_what_json_gives_or_its_error(text):
    decoder = json.JSONDecoder(parse_float=Decimal)
    try:
        expected = decoder.decode(text)
    except json.JSONDecodeError as error:
        with pytest.raises(json.JSONDecodeError) as raised:
            fast_loads(decoder)(text)
        assert (raised.value.msg, raised.value.pos) == (error.msg, error.pos)
    else:
        assert fast_loads(decoder)(text) == expected


@pytest.mark.parametrize("type_name, value", [("Edm.Int64", 2 ** 62), ("Edm.Double", 0.5), ("Edm.Single", 0.5),
                                              ("Edm.Decimal", Decimal("1.10"))])
def test_a_value_skipped_as_already_typed_is_what_its_decoder_would_return(type_name, value):
    assert type(value) is typed_class_of(type_name)
    assert DECODERS[type_name](value) is value


def test_types_whose_values_always_need_decoding_have_no_typed_class():
    for type_name in DECODERS:
        if type_name not in ("Edm.Int64", "Edm.Double", "Edm.Single", "Edm.Decimal"):
            assert typed_class_of(type_name) not in (int, float, str, bool, Decimal, list, dict, type(None))
