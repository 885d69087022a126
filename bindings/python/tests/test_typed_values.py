"""Typed values (issue 24): reads give Python types, the same for V2 (mock-sap) and V4 (odatapy),
bodies take them, annotations are attributes, and raw reads keep the JSON as sent."""
import datetime
import json
import uuid
from decimal import Decimal

import pytest

from offline_odata import Entity, Mode, Store
from offline_odata.values import DECODERS, body_json
from conftest import US_AGENCIES

UTC = datetime.timezone.utc
FLIGHTS = "FlightCollection?$orderby=carrid,connid,fldate&$top=3&$expand=FlightBookings"


def open_store(backend, tmp_path, **options):
    return Store(tmp_path / f"{backend.kind}.store", service_root=backend.service_root,
                 defining_requests={"Agencies": US_AGENCIES, "Flights": "FlightCollection",
                                    "Bookings": "BookingCollection"}, **options)


def test_reads_give_python_types_the_same_for_v2_and_v4(v4, v2, tmp_path):
    read = {}
    for backend in (v4, v2):
        with open_store(backend, tmp_path) as store:
            read[backend.kind] = store.entities(FLIGHTS)
    for flights in read.values():
        flight = flights[0]
        assert isinstance(flight, Entity)
        assert isinstance(flight["price"], Decimal) and isinstance(flight["seatsmax"], int)
        assert flight["ChangedAt"].tzinfo is not None
        booking = flight["FlightBookings"][0]
        assert isinstance(booking, Entity) and isinstance(booking["forcuram"], Decimal)
        assert isinstance(booking["smoker"], bool)
    # V4's Edm.Date is a date; V2 has no Edm.Date, its Edm.DateTime is a datetime at midnight UTC.
    v4_flight, v2_flight = read["v4"][0], read["v2"][0]
    assert v4_flight["fldate"] == v2_flight["fldate"].date() and type(v4_flight["fldate"]) is datetime.date
    assert v2_flight["fldate"] == datetime.datetime.combine(v4_flight["fldate"], datetime.time(), UTC)
    for v4_entity, v2_entity in zip(read["v4"], read["v2"]):
        without_dates = lambda entity: {k: v for k, v in entity.items() if k not in ("fldate", "FlightBookings")}
        assert without_dates(v4_entity) == without_dates(v2_entity)
        assert [without_dates(b) for b in v4_entity["FlightBookings"]] == [
            {**without_dates(b), "order_date": b["order_date"].date()} for b in v2_entity["FlightBookings"]]


def test_decimals_keep_every_digit(backend, tmp_path):
    with open_store(backend, tmp_path) as store:
        agency = store.entity("TravelagencyCollection('00000001')")
        assert agency["creditlimit"] == Decimal("9999999999999.99")
        assert str(agency["creditlimit"]) == "9999999999999.99"


def test_annotations_are_attributes_not_keys(backend, tmp_path):
    with open_store(backend, tmp_path) as store:
        agency = store.entity("TravelagencyCollection('00000001')")
        assert not [key for key in agency if "@" in key or key.startswith("__")]
        assert "AgencyBookings" not in agency  # V2's __deferred link is an annotation
        assert agency.etag and agency.etag.startswith('W/"')
        assert not agency.is_local and not agency.has_pending_changes and not agency.in_error_state
        if backend.kind == "v4":
            assert agency["@odata.etag"] == agency.etag
        else:
            assert agency.annotations["__metadata"]["type"] == "RMTSAMPLEFLIGHT.Travelagency"
        made = store.create("TravelagencyCollection", {"agencynum": "99000201", "name": "Flagged", "country": "US"})
        assert made.is_local and made.has_pending_changes and "@com.sap.vocabularies.Offline.v1.isLocal" not in made
        changed = store.update("TravelagencyCollection('00000001')", {"city": "Salem"},
                               method="PATCH" if backend.kind == "v4" else "MERGE")
        assert changed is None or changed.has_pending_changes
        assert store.entity("TravelagencyCollection('00000001')").has_pending_changes


def test_raw_reads_keep_the_json_as_sent(backend, tmp_path):
    with open_store(backend, tmp_path) as store:
        text = store.get("TravelagencyCollection('00000001')", raw=True)
        assert isinstance(text, str)
        if backend.kind == "v2":
            assert '"ChangedAt":"/Date(' in text and '"creditlimit":"9999999999999.99"' in text and "__metadata" in text
        else:
            assert '"@odata.etag"' in text and '"creditlimit":9999999999999.99' in text
        # A Result stays the answer as sent: value() unwraps it, untyped.
        untyped = store.execute("GET", "TravelagencyCollection('00000001')").value()
        assert type(untyped) is dict and isinstance(untyped["ChangedAt"], str)


def test_bodies_take_the_python_types_and_the_service_gets_them(backend, tmp_path):
    changed_at = datetime.datetime(2024, 5, 6, 7, 8, 9, 123000, tzinfo=UTC)
    with open_store(backend, tmp_path) as store:
        kept = store.create("TravelagencyCollection", {"agencynum": "99000204", "name": "Local", "country": "US",
                                                       "ChangedAt": changed_at})
        assert kept["ChangedAt"] == changed_at == store.entity("TravelagencyCollection('99000204')")["ChangedAt"]
        assert store.undo("TravelagencyCollection('99000204')").action == "removed"
        body = {"agencynum": "99000202", "name": "Typed", "country": "US", "creditlimit": Decimal("12345678901.23")}
        if backend.kind == "v4":
            body["ChangedAt"] = changed_at  # mock-sap declares ChangedAt sap:creatable="false"
        made = store.create("TravelagencyCollection", body)
        assert made["creditlimit"] == Decimal("12345678901.23")
        assert store.entity("TravelagencyCollection('99000202')") == made
        assert store.upload() == (1, 0)
    with Store(service_root=backend.service_root, mode=Mode.ONLINE) as online:
        on_service = online.entity("TravelagencyCollection('99000202')")
    assert on_service["creditlimit"] == Decimal("12345678901.23")
    assert on_service["ChangedAt"].tzinfo is not None  # the service stamps it itself


def test_a_body_value_of_no_odata_type_is_a_clear_error(v4, tmp_path):
    with open_store(v4, tmp_path) as store:
        with pytest.raises(TypeError, match="a request body cannot hold a object"):
            store.create("TravelagencyCollection", {"agencynum": "99000203", "name": object()})
        assert store.request_queue() == []


def test_bodies_are_written_in_each_dialect():
    body = {"d": Decimal("1.10"), "t": datetime.datetime(1970, 1, 2, tzinfo=UTC), "day": datetime.date(1970, 1, 2),
            "g": uuid.UUID("12345678-1234-5678-1234-567812345678"), "b": b"\xfb\xff", "n": None,
            "at": datetime.time(13, 20), "span": datetime.timedelta(days=1, hours=2, seconds=3.5)}
    v4 = json.loads(body_json(body, lambda: False), parse_float=Decimal)
    assert v4 == {"d": Decimal("1.10"), "t": "1970-01-02T00:00:00+00:00", "day": "1970-01-02",
                  "g": "12345678-1234-5678-1234-567812345678", "b": "-_8=", "n": None, "at": "13:20:00",
                  "span": "P1DT2H0M3.5S"}
    assert b'"d":1.10' in body_json(body, lambda: False)
    v2 = json.loads(body_json(body, lambda: True))
    assert v2["d"] == "1.10" and v2["t"] == "/Date(86400000)/" and v2["day"] == "/Date(86400000)/"
    assert v2["b"] == "+/8=" and v2["at"] == "PT13H20M00S"


def test_every_decoder_reads_both_dialects():
    assert DECODERS["Edm.DateTime"]("/Date(86400000)/") == datetime.datetime(1970, 1, 2, tzinfo=UTC)
    shifted = DECODERS["Edm.DateTimeOffset"]("/Date(86400000+0060)/")
    assert shifted == datetime.datetime(1970, 1, 2, tzinfo=UTC) and shifted.utcoffset() == datetime.timedelta(hours=1)
    assert DECODERS["Edm.DateTimeOffset"]("2021-07-15T21:13:53.5350000Z") == datetime.datetime(
        2021, 7, 15, 21, 13, 53, 535000, tzinfo=UTC)
    assert DECODERS["Edm.TimeOfDay"]("13:20:00.000") == datetime.time(13, 20)
    assert DECODERS["Edm.Time"]("PT13H20M00S") == datetime.time(13, 20)
    assert DECODERS["Edm.Duration"]("-P1DT2H") == -datetime.timedelta(days=1, hours=2)
    assert DECODERS["Edm.Int64"]("9007199254740993") == 9007199254740993
    assert DECODERS["Edm.Double"]("INF") == float("inf") and DECODERS["Edm.Double"](Decimal("1.5")) == 1.5
    assert DECODERS["Edm.Binary"]("-_8") == DECODERS["Edm.Binary"]("+/8=") == b"\xfb\xff"
    assert DECODERS["Edm.Guid"]("12345678-1234-5678-1234-567812345678") == uuid.UUID(int=0x12345678123456781234567812345678)
    with pytest.raises(ValueError):
        DECODERS["Edm.Duration"]("one day")


KINDS = """<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
  <edmx:DataServices>
    <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="Kinds">
      <EntityType Name="Thing">
        <Key><PropertyRef Name="ID"/></Key>
        <Property Name="ID" Type="Edm.Guid" Nullable="false"/>
        <Property Name="Big" Type="Edm.Int64"/>
        <Property Name="Ratio" Type="Edm.Double"/>
        <Property Name="Blob" Type="Edm.Binary"/>
        <Property Name="At" Type="Edm.TimeOfDay"/>
        <Property Name="Span" Type="Edm.Duration"/>
        <Property Name="Amount" Type="Edm.Decimal" Precision="20" Scale="4"/>
      </EntityType>
      <EntityContainer Name="Container"><EntitySet Name="Things" EntityType="Kinds.Thing"/></EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>
"""


def test_guid_binary_time_duration_int64_and_double_through_an_offline_store(tmp_path):
    thing = {"ID": uuid.uuid4(), "Big": 2 ** 62 + 1, "Ratio": 0.25, "Blob": bytes(range(256)),
             "At": datetime.time(23, 59, 58, 500000), "Span": datetime.timedelta(hours=36, seconds=1),
             "Amount": Decimal("1234567890123456.7891")}
    with Store(tmp_path / "kinds.store", metadata=KINDS, mode=Mode.OFFLINE) as store:
        made = store.create("Things", thing)
        assert made == thing
        assert store.entity(f"Things({thing['ID']})") == thing
        assert type(store.entities("Things")[0]["Ratio"]) is float
