"""Probes of the two real OData backends: what the engine will rely on, checked against the data.

Each test reads the generator's seed (`seed` fixture) and asserts the servers' answers against
values computed from it. HTTP client: urllib only. Quirks found here are written up in README.md;
tests that pin a quirk say so in their name (`quirk_`), so a package upgrade that changes the
behaviour shows up as a failing test instead of as a silently different backend.
"""
from __future__ import annotations

import datetime as dt
import http.cookiejar
import json
import re
import urllib.error
import urllib.parse
import urllib.request
import uuid
import xml.etree.ElementTree as ET
from decimal import Decimal
from pathlib import Path

import pytest

import backends
from conftest import V4_PAGE_SIZE

MAX_PAGES = 200  # every nextLink loop is bounded


# --------------------------------------------------------------------------- HTTP helpers

class Reply:
    def __init__(self, status: int, headers, body: bytes):
        self.status = status
        self.headers = headers
        self.body = body

    def header(self, name: str) -> str | None:
        return self.headers.get(name)

    @property
    def text(self) -> str:
        return self.body.decode("utf-8")

    def json(self):
        return json.loads(self.body)

    def __repr__(self) -> str:
        return f"<Reply {self.status} {self.body[:300]!r}>"


def call(url: str, method: str = "GET", body=None, headers: dict | None = None,
         opener: urllib.request.OpenerDirector | None = None) -> Reply:
    data = None
    headers = dict(headers or {})
    if body is not None:
        if isinstance(body, (dict, list)):
            data = json.dumps(body).encode()
            headers.setdefault("Content-Type", "application/json")
        else:
            data = body if isinstance(body, bytes) else body.encode()
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with (opener.open if opener else urllib.request.urlopen)(request, timeout=30) as r:
            return Reply(r.status, r.headers, r.read())
    except urllib.error.HTTPError as e:
        return Reply(e.code, e.headers, e.read())


def q(text: str) -> str:
    """Percent-encode a query option value (spaces, quotes, %, +)."""
    return urllib.parse.quote(text, safe="$(),/=:'*")


def batch_payload(boundary: str, changeset: str, ops, gets=()) -> str:
    """A multipart $batch: one changeset of (content_id, method, path, body), then GETs."""
    text = f"--{boundary}\r\nContent-Type: multipart/mixed; boundary={changeset}\r\n\r\n"
    for cid, method, path, body in ops:
        text += (f"--{changeset}\r\nContent-Type: application/http\r\n"
                 f"Content-Transfer-Encoding: binary\r\nContent-ID: {cid}\r\n\r\n"
                 f"{method} {path} HTTP/1.1\r\nContent-Type: application/json\r\n"
                 "Accept: application/json\r\n\r\n" + json.dumps(body) + "\r\n")
    text += f"--{changeset}--\r\n"
    for path in gets:
        text += (f"--{boundary}\r\nContent-Type: application/http\r\n"
                 "Content-Transfer-Encoding: binary\r\n\r\n"
                 f"GET {path} HTTP/1.1\r\nAccept: application/json\r\n\r\n")
    return text + f"--{boundary}--\r\n"


BATCH = {"Content-Type": "multipart/mixed; boundary=batch_1"}


# --------------------------------------------------------------------------- seed helpers

def agencies(seed, pred=lambda a: True):
    return {a["agencynum"] for a in seed["TravelagencyCollection"] if pred(a)}


def flight_key(row) -> tuple:
    return row["carrid"], row["connid"], row["fldate"]


def bookings_of_flight(seed, key):
    return {b["bookid"] for b in seed["BookingCollection"] if flight_key(b) == key}


# =========================================================================== V4: odatapy

def v4_read_all(url: str, headers=None) -> tuple[list[dict], list[dict]]:
    """Follow @odata.nextLink to the end; returns (entities, pages)."""
    entities, pages = [], []
    for _ in range(MAX_PAGES):
        reply = call(url, headers=headers)
        assert reply.status == 200, reply
        page = reply.json()
        pages.append(page)
        entities.extend(page["value"])
        url = page.get("@odata.nextLink")
        if not url:
            return entities, pages
    raise AssertionError("more than %d pages" % MAX_PAGES)


class TestV4:
    def test_metadata_is_the_sample(self, v4):
        reply = call(v4.url("$metadata"))
        assert reply.status == 200
        assert reply.header("Content-Type").startswith("application/xml")
        root = ET.fromstring(reply.body)
        ns = "{http://docs.oasis-open.org/odata/ns/edm}"
        sets = {e.get("Name"): e.get("EntityType") for e in root.iter(ns + "EntitySet")}
        assert sets == {"TravelagencyCollection": "RMTSAMPLEFLIGHT.Travelagency",
                        "CarrierCollection": "RMTSAMPLEFLIGHT.Carrier",
                        "FlightCollection": "RMTSAMPLEFLIGHT.Flight",
                        "BookingCollection": "RMTSAMPLEFLIGHT.Booking"}
        imports = {e.get("Name") for e in root.iter(ns + "FunctionImport")}
        assert imports == {"GetAgencyDetails", "GetFlightDetails"}
        assert [e.get("Name") for e in root.iter(ns + "ActionImport")] == ["UpdateAgencyPhoneNo"]

    def test_service_document(self, v4):
        names = {s["name"] for s in call(v4.url("")).json()["value"]}
        assert {"TravelagencyCollection", "CarrierCollection", "FlightCollection",
                "BookingCollection"} <= names

    def test_entity_set_read(self, v4, seed):
        page = call(v4.url("CarrierCollection")).json()
        assert [c["carrid"] for c in page["value"]] == [c["carrid"] for c in seed["CarrierCollection"]]
        assert "@odata.nextLink" not in page
        assert page["value"][0]["CARRNAME"] == "American Airlines"

    def test_filter_country(self, v4, seed):
        got, _ = v4_read_all(v4.url("TravelagencyCollection?$filter=" + q("COUNTRY eq 'US'")))
        assert {a["agencynum"] for a in got} == agencies(seed, lambda a: a["COUNTRY"] == "US")
        assert all(a["COUNTRY"] == "US" for a in got) and len(got) >= 2

    def test_filter_city_beijing(self, v4, seed):
        got, _ = v4_read_all(v4.url("TravelagencyCollection?$filter=" + q("CITY eq 'Beijing'")))
        assert {a["agencynum"] for a in got} == agencies(seed, lambda a: a["CITY"] == "Beijing")
        assert "O'Brien & Co Travel" in {a["NAME"] for a in got}

    def test_filter_property_names_are_case_sensitive(self, v4):
        # The blog's `country eq 'US'` does not resolve against this service's COUNTRY.
        reply = call(v4.url("TravelagencyCollection?$filter=" + q("country eq 'US'")))
        assert reply.status == 400
        assert "country" in reply.json()["error"]["message"]

    def test_filter_null_and_wildcards(self, v4, seed):
        url = v4.url("TravelagencyCollection?$filter=" + q("CITY ne 'Rome'"))
        got, _ = v4_read_all(url)
        expected = agencies(seed, lambda a: a["CITY"] != "Rome")  # includes the null-city row
        assert {a["agencynum"] for a in got} == expected
        assert any(a["CITY"] is None for a in got)
        got, _ = v4_read_all(v4.url("TravelagencyCollection?$filter=" + q("contains(NAME,'%')")))
        assert [a["NAME"] for a in got] == ["100% Fun Tours"]
        got, _ = v4_read_all(v4.url("TravelagencyCollection?$filter=" + q("startswith(NAME,'rome')")))
        assert [a["NAME"] for a in got] == ["rome travel"]

    def test_filter_date_and_decimal(self, v4, seed):
        url = v4.url("FlightCollection?$filter=" + q("fldate gt 2013-09-16 and PRICE lt 1000.5"))
        got, _ = v4_read_all(url)
        expected = {flight_key(f) for f in seed["FlightCollection"]
                    if f["fldate"] > "2013-09-16" and f["PRICE"] is not None
                    and Decimal(f["PRICE"]) < Decimal("1000.5")}
        assert {flight_key(f) for f in got} == expected and expected

    def test_paging_visits_every_entity_once(self, v4, seed):
        got, pages = v4_read_all(v4.url("BookingCollection"))
        ids = [b["bookid"] for b in got]
        assert len(ids) == len(set(ids)) == len(seed["BookingCollection"])
        assert set(ids) == {b["bookid"] for b in seed["BookingCollection"]}
        assert len(pages) == -(-len(ids) // V4_PAGE_SIZE)
        assert all(len(p["value"]) == V4_PAGE_SIZE for p in pages[:-1])
        assert "$skiptoken=" in pages[0]["@odata.nextLink"]

    def test_paging_keeps_filter_and_honours_maxpagesize(self, v4, seed):
        url = v4.url("BookingCollection?$filter=" + q("CLASS eq 'F'") + "&$select=bookid,CLASS")
        got, pages = v4_read_all(url, headers={"Prefer": "odata.maxpagesize=7"})
        assert {b["bookid"] for b in got} == {b["bookid"] for b in seed["BookingCollection"]
                                              if b["CLASS"] == "F"}
        assert all(b["CLASS"] == "F" for b in got)
        assert all(len(p["value"]) == 7 for p in pages[:-1]) and len(pages) > 1

    def test_count(self, v4, seed):
        page = call(v4.url("BookingCollection?$count=true&$top=3")).json()
        assert page["@odata.count"] == len(seed["BookingCollection"])
        assert len(page["value"]) == 3
        reply = call(v4.url("TravelagencyCollection/$count?$filter=" + q("COUNTRY eq 'DE'")),
                     headers={"Accept": "text/plain"})
        assert reply.status == 200
        assert int(reply.text) == len(agencies(seed, lambda a: a["COUNTRY"] == "DE"))

    def test_expand(self, v4, seed):
        key = ("AA", "0017", "2016-01-20")
        url = v4.url("FlightCollection(carrid='AA',connid='0017',fldate=2016-01-20)"
                     "?$expand=FlightCarrier,FlightBookings($select=bookid)")
        flight = call(url).json()
        assert flight["FlightCarrier"]["CARRNAME"] == "American Airlines"
        assert {b["bookid"] for b in flight["FlightBookings"]} == bookings_of_flight(seed, key)
        agency = call(v4.url("TravelagencyCollection('00000001')?$expand=AgencyBookings")).json()
        assert {b["bookid"] for b in agency["AgencyBookings"]} == {
            b["bookid"] for b in seed["BookingCollection"] if b["agencynum"] == "00000001"}
        booking = seed["BookingCollection"][0]
        url = v4.url("BookingCollection(carrid='%s',connid='%s',fldate=%s,bookid='%s')"
                     "?$expand=BookedFlight,BookingAgency" % (*flight_key(booking), booking["bookid"]))
        got = call(url).json()
        assert flight_key(got["BookedFlight"]) == flight_key(booking)
        assert (got["BookingAgency"] or {}).get("agencynum") == booking["agencynum"]

    def test_orderby_top_skip_and_navigation_filter(self, v4, seed):
        page = call(v4.url("BookingCollection?$orderby=bookid desc&$top=5&$skip=2&$select=bookid"
                           .replace(" ", "%20"))).json()
        ids = sorted((b["bookid"] for b in seed["BookingCollection"]), reverse=True)
        assert [b["bookid"] for b in page["value"]] == ids[2:7]
        url = v4.url("BookingCollection?$select=bookid&$filter=" + q("BookingAgency/CITY eq 'Beijing'"))
        got, _ = v4_read_all(url)
        beijing = agencies(seed, lambda a: a["CITY"] == "Beijing")
        assert {b["bookid"] for b in got} == {b["bookid"] for b in seed["BookingCollection"]
                                              if b["agencynum"] in beijing}
        flights = call(v4.url("CarrierCollection('LH')/CarrierFlights/$count"),
                       headers={"Accept": "text/plain"})
        assert int(flights.text) == sum(f["carrid"] == "LH" for f in seed["FlightCollection"])

    def test_put_resets_omitted_properties(self, v4):
        url = v4.url("CarrierCollection('AZ')")
        assert call(url, "PUT", {"carrid": "AZ", "CARRNAME": "ITA"}, {"If-Match": 'W/"1"'}).status == 204
        got = call(url).json()
        assert (got["CARRNAME"], got["CURRCODE"], got["URL"]) == ("ITA", None, None)

    def test_key_reads(self, v4, seed):
        agency = call(v4.url("TravelagencyCollection('00000002')"))
        assert agency.status == 200 and agency.json()["NAME"] == "O'Brien & Co Travel"
        assert agency.header("ETag") == 'W/"1"'
        flight = call(v4.url("FlightCollection(carrid='LH',connid='0400',fldate=2013-09-16)")).json()
        seed_flight = next(f for f in seed["FlightCollection"]
                           if flight_key(f) == ("LH", "0400", "2013-09-16"))
        assert flight["SEATSMAX"] == seed_flight["SEATSMAX"]
        assert call(v4.url("TravelagencyCollection('99999999')")).status == 404
        null_row = call(v4.url("TravelagencyCollection('00000007')")).json()
        assert null_row["CITY"] is None and null_row["NAME"] == "Null Island Tours"

    def test_decimals_exact_with_ieee754compatible(self, v4):
        url = v4.url("TravelagencyCollection('00000001')?$select=CREDITLIMIT")
        exact = call(url, headers={"Accept": "application/json;IEEE754Compatible=true"}).json()
        assert exact["CREDITLIMIT"] == "9999999999999.99"
        plain = json.loads(call(url).body, parse_float=Decimal)
        assert plain["CREDITLIMIT"] == Decimal("9999999999999.99")  # a JSON number by default

    def test_create_with_server_key_and_links(self, v4, seed):
        reply = call(v4.url("TravelagencyCollection"), "POST",
                     {"NAME": "Créée Travel", "CITY": "Beijing", "COUNTRY": "CN"})
        assert reply.status == 201
        new = "%08d" % (len(seed["TravelagencyCollection"]) + 1)
        assert reply.json()["agencynum"] == new
        assert reply.header("Location").endswith("TravelagencyCollection('%s')" % new)
        assert reply.header("ETag") == 'W/"1"'
        created = reply.json()
        assert created["STREET"] is None and created["CREDITLIMIT"] is None  # the server fills nulls
        stamped = dt.datetime.fromisoformat(created["ChangedAt"].replace("Z", "+00:00"))
        assert abs(dt.datetime.now(dt.timezone.utc) - stamped) < dt.timedelta(minutes=5)
        # A booking naming the new agency by foreign key is linked both ways (the server does it).
        reply = call(v4.url("BookingCollection"), "POST",
                     {"carrid": "AA", "connid": "0017", "fldate": "2016-01-20",
                      "agencynum": new, "PASSNAME": "New Passenger", "FORCURAM": "-1.50"})
        assert reply.status == 201, reply
        bookid = reply.json()["bookid"]
        assert bookid == "%08d" % (len(seed["BookingCollection"]) + 1)
        linked = call(v4.url("TravelagencyCollection('%s')/AgencyBookings" % new)).json()["value"]
        assert [b["bookid"] for b in linked] == [bookid]
        assert Decimal(str(linked[0]["FORCURAM"])) == Decimal("-1.50")

    def test_update_and_etags(self, v4):
        url = v4.url("TravelagencyCollection('00000003')")
        assert call(url, "PATCH", {"TELEPHONE": "+49 69 0"}).status == 428
        stale = call(url, "PATCH", {"TELEPHONE": "+49 69 0"}, {"If-Match": 'W/"7"'})
        assert stale.status == 412
        ok = call(url, "PATCH", {"TELEPHONE": "+49 69 0"}, {"If-Match": 'W/"1"'})
        assert ok.status == 204 and ok.header("ETag") == 'W/"2"'
        after = call(url).json()
        assert after["TELEPHONE"] == "+49 69 0"
        stamped = dt.datetime.fromisoformat(after["ChangedAt"].replace("Z", "+00:00"))
        assert abs(dt.datetime.now(dt.timezone.utc) - stamped) < dt.timedelta(minutes=5)
        assert call(url, "PATCH", {"TELEPHONE": "x"}, {"If-Match": 'W/"1"'}).status == 412
        assert call(url, "DELETE").status == 428
        assert call(url, "DELETE", headers={"If-Match": 'W/"2"'}).status == 204
        assert call(url).status == 404

    def test_batch_changeset(self, v4, seed):
        boundary, changeset = "batch_" + uuid.uuid4().hex, "changeset_" + uuid.uuid4().hex
        def op(cid, body):
            return (f"--{changeset}\r\nContent-Type: application/http\r\n"
                    f"Content-Transfer-Encoding: binary\r\nContent-ID: {cid}\r\n\r\n"
                    "POST TravelagencyCollection HTTP/1.1\r\nContent-Type: application/json\r\n\r\n"
                    + json.dumps(body) + "\r\n")
        payload = (f"--{boundary}\r\nContent-Type: multipart/mixed; boundary={changeset}\r\n\r\n"
                   + op(1, {"agencynum": "90000001", "NAME": "Batch One"})
                   + op(2, {"agencynum": "90000002", "NAME": "Batch Two"})
                   + f"--{changeset}--\r\n"
                   f"--{boundary}\r\nContent-Type: application/http\r\n"
                   "Content-Transfer-Encoding: binary\r\n\r\n"
                   "GET TravelagencyCollection('90000002') HTTP/1.1\r\nAccept: application/json\r\n\r\n"
                   f"--{boundary}--\r\n")
        reply = call(v4.url("$batch"), "POST", payload,
                     {"Content-Type": f"multipart/mixed; boundary={boundary}"})
        assert reply.status == 200
        assert re.findall(r"HTTP/1.1 (\d{3})", reply.text) == ["201", "201", "200"]
        assert call(v4.url("TravelagencyCollection('90000001')")).status == 200
        # Atomic: the second create collides with a seed key, so neither is kept.
        payload = payload.replace("90000001", "90000003").replace('"90000002"', '"00000001"')
        reply = call(v4.url("$batch"), "POST", payload,
                     {"Content-Type": f"multipart/mixed; boundary={boundary}"})
        assert reply.status == 200
        assert re.findall(r"HTTP/1.1 (\d{3})", reply.text)[0] == "409"
        assert call(v4.url("TravelagencyCollection('90000003')")).status == 404

    def test_batch_content_id_reference(self, v4):
        payload = batch_payload("batch_1", "changeset_1", [
            (1, "POST", "TravelagencyCollection", {"agencynum": "90000001", "NAME": "Ref"}),
            (2, "POST", "$1/AgencyBookings", {"carrid": "AA", "connid": "0017", "fldate": "2016-01-20",
                                              "bookid": "90000001", "PASSNAME": "Via $1"})])
        reply = call(v4.url("$batch"), "POST", payload, BATCH)
        assert reply.status == 200
        assert re.findall(r"HTTP/1.1 (\d{3})", reply.text) == ["201", "201"]
        booking = call(v4.url("BookingCollection(carrid='AA',connid='0017',fldate=2016-01-20,"
                              "bookid='90000001')?$expand=BookingAgency")).json()
        assert booking["agencynum"] == "90000001"      # FK set from the owner (the server does it)
        assert booking["BookingAgency"]["NAME"] == "Ref"

    def test_delta(self, v4, seed):
        first = call(v4.url("TravelagencyCollection"),
                     headers={"Prefer": "odata.track-changes,odata.maxpagesize=1000"})
        # maxpagesize is capped at the server's page size (quirk: the delta link is on page 1).
        assert first.header("Preference-Applied") == (
            "odata.track-changes,odata.maxpagesize=%d" % V4_PAGE_SIZE)
        got, pages = v4_read_all(v4.url("TravelagencyCollection"),
                                 headers={"Prefer": "odata.track-changes"})
        assert len(got) == len(seed["TravelagencyCollection"])
        delta_link = next(p["@odata.deltaLink"] for p in pages if "@odata.deltaLink" in p)
        assert "$deltatoken=" in delta_link
        assert call(v4.url("TravelagencyCollection('00000004')"), "PATCH", {"NAME": "Changed"},
                    {"If-Match": 'W/"1"'}).status == 204
        assert call(v4.url("TravelagencyCollection('00000005')"), "DELETE",
                    headers={"If-Match": "*"}).status == 204
        delta = call(delta_link).json()
        changed = [e for e in delta["value"] if "agencynum" in e]
        removed = [e for e in delta["value"] if "@removed" in e]
        assert [(e["agencynum"], e["NAME"]) for e in changed] == [("00000004", "Changed")]
        assert [e["@id"].rsplit("/", 1)[1] for e in removed] == ["TravelagencyCollection('00000005')"]
        assert removed[0]["@removed"] == {"reason": "deleted"}
        assert delta["@odata.deltaLink"] != delta_link
        # OData 4.0 clients get the 4.0 shape of a deleted entity.
        old = call(delta_link, headers={"OData-MaxVersion": "4.0"}).json()
        assert any(e.get("@odata.context", "").endswith("$deletedEntity") for e in old["value"])
        assert call(delta["@odata.deltaLink"]).json()["value"] == []

    def test_quirk_delta_link_placement_when_paging(self, v4):
        # A page answers with a deltaLink (next to its nextLink) whenever *that* request carries
        # Prefer: odata.track-changes; the nextLink does not carry the preference on.
        _, pages = v4_read_all(v4.url("TravelagencyCollection"),
                               headers={"Prefer": "odata.track-changes"})
        assert len(pages) > 1
        assert all("@odata.deltaLink" in p for p in pages)
        assert "@odata.nextLink" in pages[0]
        first = call(v4.url("TravelagencyCollection"), headers={"Prefer": "odata.track-changes"}).json()
        assert "@odata.deltaLink" in first and "@odata.nextLink" in first
        _, rest = v4_read_all(first["@odata.nextLink"])
        assert not any("@odata.deltaLink" in p for p in rest)   # last page: no delta link at all

    def test_quirk_delta_drops_filter_and_select(self, v4):
        page = call(v4.url("TravelagencyCollection?$select=agencynum&$filter=" + q("COUNTRY eq 'US'")),
                    headers={"Prefer": "odata.track-changes"}).json()
        link = page["@odata.deltaLink"]
        assert "$filter" not in link and "$select" not in link
        # A German agency changes: it is not in the defining filter, yet the delta reports it.
        assert call(v4.url("TravelagencyCollection('00000003')"), "PATCH", {"NAME": "Moved"},
                    {"If-Match": 'W/"1"'}).status == 204
        delta = call(link).json()["value"]
        assert [(e["agencynum"], e["COUNTRY"]) for e in delta] == [("00000003", "DE")]

    def test_reset_restores_seed(self, v4, seed):
        assert call(v4.url("TravelagencyCollection('00000002')"), "DELETE",
                    headers={"If-Match": "*"}).status == 204
        call(v4.url("CarrierCollection('AA')"), "PATCH", {"CARRNAME": "X"}, {"If-Match": "*"})
        v4.reset()
        assert call(v4.url("TravelagencyCollection('00000002')")).status == 200
        carrier = call(v4.url("CarrierCollection('AA')"))
        assert carrier.json()["CARRNAME"] == "American Airlines" and carrier.header("ETag") == 'W/"1"'
        assert call(v4.url("BookingCollection/$count"), headers={"Accept": "text/plain"}).text == str(
            len(seed["BookingCollection"]))

    def test_function_and_action_imports(self, v4, seed):
        agency = call(v4.url("GetAgencyDetails(agencynum='00000003')"))
        assert agency.status == 200 and agency.json()["NAME"] == "100% Fun Tours"
        details = call(v4.url("GetFlightDetails(carrid='AA',connid='0017',fldate=2016-01-20)")).json()
        flight = next(f for f in seed["FlightCollection"] if flight_key(f) == ("AA", "0017", "2016-01-20"))
        assert details["seatsFree"] == flight["SEATSMAX"] - flight["SEATSOCC"]
        assert details["distanceUnit"] == "KM"
        reply = call(v4.url("UpdateAgencyPhoneNo"), "POST",
                     {"agencynum": "00000003", "TELEPHONE": "+49 69 4711"})
        assert reply.status == 200 and reply.json()["TELEPHONE"] == "+49 69 4711"
        assert reply.header("ETag") == 'W/"2"'
        assert call(v4.url("TravelagencyCollection('00000003')")).json()["TELEPHONE"] == "+49 69 4711"
        assert call(v4.url("UpdateAgencyPhoneNo"), "GET").status == 405


# =========================================================================== V2: mock-sap

JSON = {"Accept": "application/json"}
V2_EDM = "{http://schemas.microsoft.com/ado/2008/09/edm}"


def v2_results(reply: Reply) -> list[dict]:
    assert reply.status == 200, reply
    return reply.json()["d"]["results"]


def v2_date(value: str) -> dt.datetime:
    ms = int(re.fullmatch(r"/Date\((-?\d+)\)/", value).group(1))
    return dt.datetime(1970, 1, 1) + dt.timedelta(milliseconds=ms)


def csrf_session(v2) -> tuple[urllib.request.OpenerDirector, str]:
    """An opener with a cookie jar and a CSRF token fetched on it."""
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    reply = call(v2.url(""), headers={"X-CSRF-Token": "Fetch", **JSON}, opener=opener)
    assert reply.status == 200
    token = reply.header("x-csrf-token")
    assert token and token != "Required"
    return opener, token


def v2_write(v2, path, method, body=None, headers=None):
    opener, token = csrf_session(v2)
    return call(v2.url(path), method, body, {"X-CSRF-Token": token, **JSON, **(headers or {})},
                opener=opener)


def structure(edmx: bytes) -> dict:
    """Entity sets -> (type name, keys, property names), from a V2 EDMX."""
    root = ET.fromstring(edmx)
    types = {}
    for et in root.iter(V2_EDM + "EntityType"):
        types[et.get("Name")] = (
            [r.get("Name") for r in et.findall(f"{V2_EDM}Key/{V2_EDM}PropertyRef")],
            [p.get("Name") for p in et.findall(V2_EDM + "Property")])
    return {es.get("Name"): (es.get("EntityType"), *types[es.get("EntityType").split(".")[-1]])
            for es in root.iter(V2_EDM + "EntitySet")}


class TestV2:
    def test_metadata_is_ours_and_agrees_with_mocksap(self, v2):
        reply = call(v2.url("$metadata"))
        assert reply.status == 200
        ours = backends.METADATA_V2.read_bytes()
        assert reply.body == ours
        native = call(v2.origin + "/_native_metadata")
        assert native.status == 200
        assert structure(native.body) == structure(ours)
        # Where mock-sap's generated document differs (README.md): one association per
        # navigation property, named assoc_<Type>_<Nav>, and no function imports.
        root = ET.fromstring(native.body)
        assocs = {a.get("Name") for a in root.iter(V2_EDM + "Association")}
        assert "assoc_Flight_FlightCarrier" in assocs and len(assocs) == 6
        assert not list(root.iter(V2_EDM + "FunctionImport"))

    def test_entity_set_read(self, v2, seed):
        rows = v2_results(call(v2.url("CarrierCollection"), headers=JSON))
        # Quirk: mock-sap answers in key order (odatapy: in insertion order).
        assert [r["carrid"] for r in rows] == sorted(c["carrid"] for c in seed["CarrierCollection"])
        assert rows[0]["__metadata"]["type"] == "RMTSAMPLEFLIGHT.Carrier"
        assert rows[0]["__metadata"]["etag"].startswith('W/"datetime\'')

    def test_quirk_collections_are_json_only(self, v2):
        # Gateway defaults to Atom; mock-sap answers JSON whatever the Accept header says.
        for accept in ({}, {"Accept": "application/atom+xml"}):
            reply = call(v2.url("CarrierCollection?$top=1"), headers=accept)
            assert reply.status == 200 and reply.header("Content-Type").startswith("application/json")
        assert call(v2.url("CarrierCollection?$format=json")).json()["d"]["results"]
        assert call(v2.url("CarrierCollection?$format=xml")).status == 400

    def test_filter_country_and_city(self, v2, seed):
        rows = v2_results(call(v2.url("TravelagencyCollection?$filter=" + q("COUNTRY eq 'US'")), headers=JSON))
        assert {r["agencynum"] for r in rows} == agencies(seed, lambda a: a["COUNTRY"] == "US")
        rows = v2_results(call(v2.url("TravelagencyCollection?$filter=" + q("CITY eq 'Beijing'")), headers=JSON))
        assert {r["agencynum"] for r in rows} == agencies(seed, lambda a: a["CITY"] == "Beijing")

    def test_filter_substringof(self, v2, seed):
        rows = v2_results(call(v2.url("TravelagencyCollection?$filter=" + q("substringof('Travel',NAME)")),
                               headers=JSON))
        assert {r["agencynum"] for r in rows} == agencies(seed, lambda a: "Travel" in (a["NAME"] or ""))
        rows = v2_results(call(v2.url("TravelagencyCollection?$filter=" + q("substringof('%',NAME)")),
                               headers=JSON))
        assert [r["NAME"] for r in rows] == ["100% Fun Tours"]

    def test_quirk_filter_ne_drops_nulls_but_wildcards_are_literal(self, v2, seed):
        # OData: null ne 'Rome' is true. mock-sap translates to SQL `<>` and loses the null row.
        rows = v2_results(call(v2.url("TravelagencyCollection?$filter=" + q("CITY ne 'Rome'")), headers=JSON))
        assert {r["agencynum"] for r in rows} == agencies(
            seed, lambda a: a["CITY"] is not None and a["CITY"] != "Rome")
        rows = v2_results(call(v2.url("TravelagencyCollection?$filter=" + q("startswith(NAME,'rome')")),
                               headers=JSON))
        assert [r["NAME"] for r in rows] == ["rome travel"]
        rows = v2_results(call(v2.url("TravelagencyCollection?$filter=" + q("substringof('_',NAME)")),
                               headers=JSON))
        assert [r["NAME"] for r in rows] == ["Sunny_Side Reisen"]

    def test_filter_datetime(self, v2, seed):
        url = v2.url("FlightCollection?$filter=" + q("fldate gt datetime'2013-09-16T00:00'"))
        rows = v2_results(call(url, headers=JSON))
        expected = {flight_key(f) for f in seed["FlightCollection"] if f["fldate"] > "2013-09-16"}
        assert {(r["carrid"], r["connid"], v2_date(r["fldate"]).date().isoformat()) for r in rows} == expected
        url = v2.url("FlightCollection?$filter=" + q("PRICE lt 1000.5M and SEATSMAX ge 300"))
        rows = v2_results(call(url, headers=JSON))
        expected = {flight_key(f) for f in seed["FlightCollection"] if f["PRICE"] is not None
                    and Decimal(f["PRICE"]) < Decimal("1000.5") and f["SEATSMAX"] >= 300}
        assert len(rows) == len(expected)

    def test_quirk_no_server_paging(self, v2, seed):
        body = call(v2.url("BookingCollection"), headers=JSON).json()["d"]
        assert len(body["results"]) == len(seed["BookingCollection"])
        assert "__next" not in body
        assert call(v2.url("BookingCollection?$skiptoken=10"), headers=JSON).status == 400
        rows = v2_results(call(v2.url("BookingCollection?$top=10&$skip=290&$orderby=bookid"), headers=JSON))
        assert [r["bookid"] for r in rows] == ["%08d" % i for i in range(291, 301)]

    def test_inlinecount_and_count(self, v2, seed):
        body = call(v2.url("BookingCollection?$inlinecount=allpages&$top=2"), headers=JSON).json()["d"]
        assert body["__count"] == str(len(seed["BookingCollection"])) and len(body["results"]) == 2
        reply = call(v2.url("TravelagencyCollection/$count?$filter=" + q("COUNTRY eq 'DE'")))
        assert int(reply.text) == len(agencies(seed, lambda a: a["COUNTRY"] == "DE"))

    def test_expand_and_composite_key(self, v2, seed):
        key = ("AA", "0017", "2016-01-20")
        url = v2.url("FlightCollection(carrid='AA',connid='0017',fldate=datetime'2016-01-20T00:00:00')"
                     "?$expand=FlightCarrier,FlightBookings")
        flight = call(url, headers=JSON).json()["d"]
        assert flight["FlightCarrier"]["CARRNAME"] == "American Airlines"
        assert {b["bookid"] for b in flight["FlightBookings"]["results"]} == bookings_of_flight(seed, key)
        agency = call(v2.url("TravelagencyCollection('00000001')?$expand=AgencyBookings"), headers=JSON).json()["d"]
        assert {b["bookid"] for b in agency["AgencyBookings"]["results"]} == {
            b["bookid"] for b in seed["BookingCollection"] if b["agencynum"] == "00000001"}

    def test_key_reads_and_wire_shapes(self, v2, seed):
        agency = call(v2.url("TravelagencyCollection('00000001')"), headers=JSON)
        assert agency.status == 200
        d = agency.json()["d"]
        assert d["CREDITLIMIT"] == "9999999999999.99"            # V2 Decimal: a string
        assert agency.header("ETag") == d["__metadata"]["etag"]
        seed_agency = seed["TravelagencyCollection"][0]
        assert v2_date(d["ChangedAt"]).isoformat(timespec="milliseconds") + "Z" == seed_agency["ChangedAt"]
        assert call(v2.url("TravelagencyCollection('99999999')"), headers=JSON).status == 404
        booking = call(v2.url("BookingCollection(carrid='%s',connid='%s',fldate=datetime'%sT00:00:00',bookid='%s')"
                              % (*flight_key(seed["BookingCollection"][0]), "00000001")), headers=JSON).json()["d"]
        assert booking["PASSNAME"] == "王小明" and booking["SMOKER"] is seed["BookingCollection"][0]["SMOKER"]

    def test_quirk_entity_uri_with_date_key(self, v2):
        d = call(v2.url("FlightCollection(carrid='AA',connid='0017',fldate=datetime'2016-01-20T00:00:00')"),
                 headers=JSON).json()["d"]
        uri = d["__metadata"]["uri"]
        assert uri.endswith("fldate=datetime'/Date(1453248000000)/')")   # not a V2 literal
        # ... which mock-sap itself resolves; a real Gateway writes datetime'2016-01-20T00%3A00%3A00'.
        assert call(uri.replace("'", "%27").replace("(", "%28").replace(")", "%29"),
                    headers=JSON).status == 200

    def test_csrf(self, v2):
        url = v2.url("TravelagencyCollection")
        denied = call(url, "POST", {"agencynum": "90000001", "NAME": "No Token"}, JSON)
        assert denied.status == 403 and denied.header("x-csrf-token") == "Required"
        on_metadata = call(v2.url("$metadata"), headers={"X-CSRF-Token": "Fetch"})
        assert on_metadata.status == 200 and len(on_metadata.header("x-csrf-token")) > 10
        opener, token = csrf_session(v2)
        reply = call(url, "POST", {"agencynum": "90000001", "NAME": "With Token"},
                     {"X-CSRF-Token": token, **JSON}, opener=opener)
        assert reply.status == 201, reply
        assert reply.json()["d"]["NAME"] == "With Token"
        assert call(url, "POST", {"agencynum": "90000002"}, {"X-CSRF-Token": "bogus", **JSON}).status == 403

    def test_quirk_csrf_token_not_bound_to_session(self, v2):
        # Any token mock-sap issued is accepted, with or without the session cookie it set.
        fetched = call(v2.url(""), headers={"X-CSRF-Token": "Fetch", **JSON})
        assert fetched.header("Set-Cookie").startswith("SAP_SESSIONID_")
        reply = call(v2.url("TravelagencyCollection"), "POST", {"agencynum": "90000009", "NAME": "x"},
                     {"X-CSRF-Token": fetched.header("x-csrf-token"), **JSON})
        assert reply.status == 201

    def test_quirk_no_server_keys_and_put_blanks(self, v2):
        reply = v2_write(v2, "TravelagencyCollection", "POST", {"NAME": "No Key"})
        assert reply.status == 400 and "agencynum" in reply.json()["error"]["message"]["value"]
        assert v2_write(v2, "TravelagencyCollection('00000002')", "PUT", {"NAME": "Put"}).status == 204
        d = call(v2.url("TravelagencyCollection('00000002')"), headers=JSON).json()["d"]
        assert (d["NAME"], d["CITY"], d["POSTBOX"], d["CREDITLIMIT"]) == ("Put", "", "", "0.00")

    def test_create_merge_delete_and_etags(self, v2):
        reply = v2_write(v2, "TravelagencyCollection", "POST",
                         {"agencynum": "90000001", "NAME": "Neu", "CREDITLIMIT": "-5.5"})
        assert reply.status == 201
        created = reply.json()["d"]
        assert created["CREDITLIMIT"] == "-5.50" and created["ChangedAt"].startswith("/Date(")
        path = "TravelagencyCollection('90000001')"
        etag = created["__metadata"]["etag"]
        ok = v2_write(v2, path, "MERGE", {"NAME": "Neu 2"}, {"If-Match": etag})
        assert ok.status == 204
        now = call(v2.url(path), headers=JSON)
        assert now.json()["d"]["NAME"] == "Neu 2" and now.header("ETag") != etag
        assert v2_write(v2, path, "MERGE", {"NAME": "Neu 3"}, {"If-Match": etag}).status == 412
        assert v2_write(v2, path, "PATCH", {"NAME": "Neu 4"}).status == 204   # lenient: no 428
        assert v2_write(v2, path, "DELETE", headers={"If-Match": etag}).status == 412
        assert v2_write(v2, path, "DELETE").status == 204
        assert call(v2.url(path), headers=JSON).status == 404

    def test_require_if_match_gives_428(self, seed):
        with backends.start_v2(csrf=False, data="small", require_if_match=True) as strict:
            url = strict.url("CarrierCollection('AA')")
            assert call(url, "MERGE", {"CARRNAME": "X"}, JSON).status == 428
            etag = call(url, headers=JSON).header("ETag")
            assert call(url, "MERGE", {"CARRNAME": "X"}, {"If-Match": etag, **JSON}).status == 204

    def test_batch_changeset(self, v2):
        boundary, changeset = "batch_" + uuid.uuid4().hex, "changeset_" + uuid.uuid4().hex
        def op(body):
            return (f"--{changeset}\r\nContent-Type: application/http\r\n"
                    "Content-Transfer-Encoding: binary\r\n\r\n"
                    "POST TravelagencyCollection HTTP/1.1\r\nContent-Type: application/json\r\n"
                    "Accept: application/json\r\n\r\n" + json.dumps(body) + "\r\n")
        payload = (f"--{boundary}\r\nContent-Type: multipart/mixed; boundary={changeset}\r\n\r\n"
                   + op({"agencynum": "90000001", "NAME": "B1"}) + op({"agencynum": "90000002", "NAME": "B2"})
                   + f"--{changeset}--\r\n--{boundary}\r\nContent-Type: application/http\r\n"
                   "Content-Transfer-Encoding: binary\r\n\r\n"
                   "GET TravelagencyCollection('90000002') HTTP/1.1\r\nAccept: application/json\r\n\r\n"
                   f"--{boundary}--\r\n")
        reply = v2_write(v2, "$batch", "POST", payload,
                         {"Content-Type": f"multipart/mixed; boundary={boundary}"})
        assert reply.status == 202
        assert re.findall(r"HTTP/1.1 (\d{3})", reply.text) == ["201", "201", "200"]
        assert call(v2.url("TravelagencyCollection('90000001')"), headers=JSON).status == 200
        # Atomic: a duplicate key in the changeset rolls back its first create.
        payload = payload.replace("90000001", "90000003").replace('"90000002"', '"00000001"')
        reply = v2_write(v2, "$batch", "POST", payload,
                         {"Content-Type": f"multipart/mixed; boundary={boundary}"})
        assert reply.status == 202
        assert re.findall(r"HTTP/1.1 (\d{3})", reply.text)[0] in ("400", "409")
        assert call(v2.url("TravelagencyCollection('90000003')"), headers=JSON).status == 404

    def test_quirk_batch_content_id_reference_fails(self, v2):
        payload = batch_payload("batch_1", "changeset_1", [
            (1, "POST", "TravelagencyCollection", {"agencynum": "90000001", "NAME": "Ref"}),
            (2, "POST", "$1/AgencyBookings", {"carrid": "AA", "connid": "0017",
                                              "fldate": "/Date(1453248000000)/", "bookid": "90000001"})])
        reply = v2_write(v2, "$batch", "POST", payload, BATCH)
        assert reply.status == 202
        assert re.findall(r"HTTP/1.1 (\d{3})", reply.text) == ["404"]   # "segment '$1'"; rolled back
        assert "Resource not found for the segment '$1'" in reply.text
        assert call(v2.url("TravelagencyCollection('90000001')"), headers=JSON).status == 404

    def test_create_booking_links_by_foreign_key(self, v2, seed):
        reply = v2_write(v2, "BookingCollection", "POST", {
            "carrid": "AA", "connid": "0017", "fldate": "/Date(1453248000000)/", "bookid": "90000002",
            "agencynum": "00000001", "SMOKER": True, "LUGGWEIGHT": "12.5", "PASSNAME": "Zoë"})
        assert reply.status == 201
        d = reply.json()["d"]
        assert (d["LUGGWEIGHT"], d["SMOKER"], d["fldate"]) == ("12.5000", True, "/Date(1453248000000)/")
        got = v2_results(call(v2.url("TravelagencyCollection('00000001')/AgencyBookings"), headers=JSON))
        assert "90000002" in {b["bookid"] for b in got}
        assert len(got) == 1 + sum(b["agencynum"] == "00000001" for b in seed["BookingCollection"])

    def test_delta(self, v2, seed):
        first = call(v2.url("TravelagencyCollection?$filter=" + q("COUNTRY eq 'DE'")),
                     headers={"Prefer": "odata.track-changes", **JSON})
        body = first.json()["d"]
        assert {r["agencynum"] for r in body["results"]} == agencies(seed, lambda a: a["COUNTRY"] == "DE")
        link = body["__delta"]
        assert "!deltatoken=" in link and "$filter=" in link       # keeps the defining filter
        changed = v2_write(v2, "TravelagencyCollection('00000003')", "MERGE", {"NAME": "Geändert"})
        assert changed.status == 204
        assert v2_write(v2, "TravelagencyCollection('00000004')", "DELETE").status == 204
        assert v2_write(v2, "TravelagencyCollection('00000001')", "MERGE", {"NAME": "US"}).status == 204
        delta = call(link, headers=JSON).json()["d"]
        rows = [r for r in delta["results"] if not r["__metadata"].get("deleted")]
        deleted = [r for r in delta["results"] if r["__metadata"].get("deleted")]
        assert [(r["agencynum"], r["NAME"]) for r in rows] == [("00000003", "Geändert")]
        assert [r["__metadata"]["uri"].rsplit("/", 1)[1] for r in deleted] == [
            "TravelagencyCollection('00000004')"]
        assert delta["__delta"] != link

    def test_reset_restores_seed(self, v2, seed):
        assert v2_write(v2, "TravelagencyCollection('00000002')", "DELETE").status == 204
        v2.reset()
        d = call(v2.url("TravelagencyCollection('00000002')"), headers=JSON).json()["d"]
        assert d["NAME"] == "O'Brien & Co Travel"
        assert int(call(v2.url("BookingCollection/$count")).text) == len(seed["BookingCollection"])

    def test_function_imports(self, v2, seed):
        reply = call(v2.url("GetAgencyDetails?agencynum='00000003'"), headers=JSON)
        assert reply.status == 200 and reply.json()["d"]["NAME"] == "100% Fun Tours"
        reply = call(v2.url("GetFlightDetails?carrid='AA'&connid='0017'&fldate=datetime'2016-01-20T00:00:00'"),
                     headers=JSON)
        details = reply.json()["d"]["GetFlightDetails"]
        flight = next(f for f in seed["FlightCollection"] if flight_key(f) == ("AA", "0017", "2016-01-20"))
        assert details["seatsFree"] == flight["SEATSMAX"] - flight["SEATSOCC"]
        before = call(v2.url("TravelagencyCollection('00000003')"), headers=JSON).header("ETag")
        path = "UpdateAgencyPhoneNo?agencynum='00000003'&TELEPHONE=" + q("'+49 69 4711'")
        assert call(v2.url(path), "POST", headers=JSON).status == 403        # CSRF applies
        reply = v2_write(v2, path, "POST")
        assert reply.status == 200 and reply.json()["d"]["TELEPHONE"] == "+49 69 4711"
        assert call(v2.url("TravelagencyCollection('00000003')"), headers=JSON).header("ETag") != before
        assert call(v2.url(path), "GET", headers=JSON).status == 405


# =========================================================================== the launcher

def test_launcher_reports_a_failing_server_with_its_stderr(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"NoSuchCollection": []}', encoding="utf-8")
    with pytest.raises(backends.BackendError) as failure:
        backends.start_v4(data=bad, timeout=30)
    assert "exited" in str(failure.value) and "NoSuchCollection" in str(failure.value)


def test_launcher_stops_exactly_its_process():
    server = backends.start_v4(data="tiny")
    pid = server.pid
    assert call(server.url("CarrierCollection")).status == 200
    server.stop()
    assert server.process.returncode is not None
    with pytest.raises(ProcessLookupError):
        import os
        os.kill(pid, 0)
