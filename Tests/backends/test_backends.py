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
        assert page["value"][0]["carrname"] == "American Airlines"

    def test_filter_country(self, v4, seed):
        got, _ = v4_read_all(v4.url("TravelagencyCollection?$filter=" + q("country eq 'US'")))
        assert {a["agencynum"] for a in got} == agencies(seed, lambda a: a["country"] == "US")
        assert all(a["country"] == "US" for a in got) and len(got) >= 2

    def test_filter_city_beijing(self, v4, seed):
        got, _ = v4_read_all(v4.url("TravelagencyCollection?$filter=" + q("city eq 'Beijing'")))
        assert {a["agencynum"] for a in got} == agencies(seed, lambda a: a["city"] == "Beijing")
        assert "O'Brien & Co Travel" in {a["name"] for a in got}

    def test_filter_property_names_are_case_sensitive(self, v4):
        # The sample's names are lower case (as the blog posts write them); `COUNTRY` is unknown.
        reply = call(v4.url("TravelagencyCollection?$filter=" + q("COUNTRY eq 'US'")))
        assert reply.status == 400
        assert "COUNTRY" in reply.json()["error"]["message"]

    def test_filter_null_and_wildcards(self, v4, seed):
        url = v4.url("TravelagencyCollection?$filter=" + q("city ne 'Rome'"))
        got, _ = v4_read_all(url)
        expected = agencies(seed, lambda a: a["city"] != "Rome")  # includes the null-city row
        assert {a["agencynum"] for a in got} == expected
        assert any(a["city"] is None for a in got)
        got, _ = v4_read_all(v4.url("TravelagencyCollection?$filter=" + q("contains(name,'%')")))
        assert [a["name"] for a in got] == ["100% Fun Tours"]
        got, _ = v4_read_all(v4.url("TravelagencyCollection?$filter=" + q("startswith(name,'rome')")))
        assert [a["name"] for a in got] == ["rome travel"]

    def test_filter_date_and_decimal(self, v4, seed):
        url = v4.url("FlightCollection?$filter=" + q("fldate gt 2013-09-16 and price lt 1000.5"))
        got, _ = v4_read_all(url)
        expected = {flight_key(f) for f in seed["FlightCollection"]
                    if f["fldate"] > "2013-09-16" and f["price"] is not None
                    and Decimal(f["price"]) < Decimal("1000.5")}
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
        url = v4.url("BookingCollection?$filter=" + q("class eq 'F'") + "&$select=bookid,class")
        got, pages = v4_read_all(url, headers={"Prefer": "odata.maxpagesize=7"})
        assert {b["bookid"] for b in got} == {b["bookid"] for b in seed["BookingCollection"]
                                              if b["class"] == "F"}
        assert all(b["class"] == "F" for b in got)
        assert all(len(p["value"]) == 7 for p in pages[:-1]) and len(pages) > 1

    def test_count(self, v4, seed):
        page = call(v4.url("BookingCollection?$count=true&$top=3")).json()
        assert page["@odata.count"] == len(seed["BookingCollection"])
        assert len(page["value"]) == 3
        reply = call(v4.url("TravelagencyCollection/$count?$filter=" + q("country eq 'DE'")),
                     headers={"Accept": "text/plain"})
        assert reply.status == 200
        assert int(reply.text) == len(agencies(seed, lambda a: a["country"] == "DE"))

    def test_expand(self, v4, seed):
        key = ("AA", "0017", "2016-01-20")
        url = v4.url("FlightCollection(carrid='AA',connid='0017',fldate=2016-01-20)"
                     "?$expand=FlightCarrier,FlightBookings($select=bookid)")
        flight = call(url).json()
        assert flight["FlightCarrier"]["carrname"] == "American Airlines"
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
        url = v4.url("BookingCollection?$select=bookid&$filter=" + q("BookingAgency/city eq 'Beijing'"))
        got, _ = v4_read_all(url)
        beijing = agencies(seed, lambda a: a["city"] == "Beijing")
        assert {b["bookid"] for b in got} == {b["bookid"] for b in seed["BookingCollection"]
                                              if b["agencynum"] in beijing}
        flights = call(v4.url("CarrierCollection('LH')/CarrierFlights/$count"),
                       headers={"Accept": "text/plain"})
        assert int(flights.text) == sum(f["carrid"] == "LH" for f in seed["FlightCollection"])

    def test_put_resets_omitted_properties(self, v4):
        url = v4.url("CarrierCollection('AZ')")
        assert call(url, "PUT", {"carrid": "AZ", "carrname": "ITA"}, {"If-Match": 'W/"1"'}).status == 204
        got = call(url).json()
        assert (got["carrname"], got["currcode"], got["url"]) == ("ITA", None, None)

    def test_key_reads(self, v4, seed):
        agency = call(v4.url("TravelagencyCollection('00000002')"))
        assert agency.status == 200 and agency.json()["name"] == "O'Brien & Co Travel"
        assert agency.header("ETag") == 'W/"1"'
        flight = call(v4.url("FlightCollection(carrid='LH',connid='0400',fldate=2013-09-16)")).json()
        seed_flight = next(f for f in seed["FlightCollection"]
                           if flight_key(f) == ("LH", "0400", "2013-09-16"))
        assert flight["seatsmax"] == seed_flight["seatsmax"]
        assert call(v4.url("TravelagencyCollection('99999999')")).status == 404
        null_row = call(v4.url("TravelagencyCollection('00000007')")).json()
        assert null_row["city"] is None and null_row["name"] == "Null Island Tours"

    def test_decimals_exact_with_ieee754compatible(self, v4):
        url = v4.url("TravelagencyCollection('00000001')?$select=creditlimit")
        exact = call(url, headers={"Accept": "application/json;IEEE754Compatible=true"}).json()
        assert exact["creditlimit"] == "9999999999999.99"
        plain = json.loads(call(url).body, parse_float=Decimal)
        assert plain["creditlimit"] == Decimal("9999999999999.99")  # a JSON number by default

    def test_create_with_server_key_and_links(self, v4, seed):
        reply = call(v4.url("TravelagencyCollection"), "POST",
                     {"name": "Créée Travel", "city": "Beijing", "country": "CN"})
        assert reply.status == 201
        new = "%08d" % (len(seed["TravelagencyCollection"]) + 1)
        assert reply.json()["agencynum"] == new
        assert reply.header("Location").endswith("TravelagencyCollection('%s')" % new)
        assert reply.header("ETag") == 'W/"1"'
        created = reply.json()
        assert created["street"] is None and created["creditlimit"] is None  # the server fills nulls
        stamped = dt.datetime.fromisoformat(created["ChangedAt"].replace("Z", "+00:00"))
        assert abs(dt.datetime.now(dt.timezone.utc) - stamped) < dt.timedelta(minutes=5)
        # A booking naming the new agency by foreign key is linked both ways (the server does it).
        reply = call(v4.url("BookingCollection"), "POST",
                     {"carrid": "AA", "connid": "0017", "fldate": "2016-01-20",
                      "agencynum": new, "passname": "New Passenger", "forcuram": "-1.50"})
        assert reply.status == 201, reply
        bookid = reply.json()["bookid"]
        assert bookid == "%08d" % (len(seed["BookingCollection"]) + 1)
        linked = call(v4.url("TravelagencyCollection('%s')/AgencyBookings" % new)).json()["value"]
        assert [b["bookid"] for b in linked] == [bookid]
        assert Decimal(str(linked[0]["forcuram"])) == Decimal("-1.50")

    def test_update_and_etags(self, v4):
        url = v4.url("TravelagencyCollection('00000003')")
        assert call(url, "PATCH", {"telephone": "+49 69 0"}).status == 428
        stale = call(url, "PATCH", {"telephone": "+49 69 0"}, {"If-Match": 'W/"7"'})
        assert stale.status == 412
        ok = call(url, "PATCH", {"telephone": "+49 69 0"}, {"If-Match": 'W/"1"'})
        assert ok.status == 204 and ok.header("ETag") == 'W/"2"'
        after = call(url).json()
        assert after["telephone"] == "+49 69 0"
        stamped = dt.datetime.fromisoformat(after["ChangedAt"].replace("Z", "+00:00"))
        assert abs(dt.datetime.now(dt.timezone.utc) - stamped) < dt.timedelta(minutes=5)
        assert call(url, "PATCH", {"telephone": "x"}, {"If-Match": 'W/"1"'}).status == 412
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
                   + op(1, {"agencynum": "90000001", "name": "Batch One"})
                   + op(2, {"agencynum": "90000002", "name": "Batch Two"})
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
            (1, "POST", "TravelagencyCollection", {"agencynum": "90000001", "name": "Ref"}),
            (2, "POST", "$1/AgencyBookings", {"carrid": "AA", "connid": "0017", "fldate": "2016-01-20",
                                              "bookid": "90000001", "passname": "Via $1"})])
        reply = call(v4.url("$batch"), "POST", payload, BATCH)
        assert reply.status == 200
        assert re.findall(r"HTTP/1.1 (\d{3})", reply.text) == ["201", "201"]
        booking = call(v4.url("BookingCollection(carrid='AA',connid='0017',fldate=2016-01-20,"
                              "bookid='90000001')?$expand=BookingAgency")).json()
        assert booking["agencynum"] == "90000001"      # FK set from the owner (the server does it)
        assert booking["BookingAgency"]["name"] == "Ref"

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
        assert call(v4.url("TravelagencyCollection('00000004')"), "PATCH", {"name": "Changed"},
                    {"If-Match": 'W/"1"'}).status == 204
        assert call(v4.url("TravelagencyCollection('00000005')"), "DELETE",
                    headers={"If-Match": "*"}).status == 204
        delta = call(delta_link).json()
        changed = [e for e in delta["value"] if "agencynum" in e]
        removed = [e for e in delta["value"] if "@removed" in e]
        assert [(e["agencynum"], e["name"]) for e in changed] == [("00000004", "Changed")]
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
        page = call(v4.url("TravelagencyCollection?$select=agencynum&$filter=" + q("country eq 'US'")),
                    headers={"Prefer": "odata.track-changes"}).json()
        link = page["@odata.deltaLink"]
        assert "$filter" not in link and "$select" not in link
        # A German agency changes: it is not in the defining filter, yet the delta reports it.
        assert call(v4.url("TravelagencyCollection('00000003')"), "PATCH", {"name": "Moved"},
                    {"If-Match": 'W/"1"'}).status == 204
        delta = call(link).json()["value"]
        assert [(e["agencynum"], e["country"]) for e in delta] == [("00000003", "DE")]

    def test_reset_restores_seed(self, v4, seed):
        assert call(v4.url("TravelagencyCollection('00000002')"), "DELETE",
                    headers={"If-Match": "*"}).status == 204
        call(v4.url("CarrierCollection('AA')"), "PATCH", {"carrname": "X"}, {"If-Match": "*"})
        v4.reset()
        assert call(v4.url("TravelagencyCollection('00000002')")).status == 200
        carrier = call(v4.url("CarrierCollection('AA')"))
        assert carrier.json()["carrname"] == "American Airlines" and carrier.header("ETag") == 'W/"1"'
        assert call(v4.url("BookingCollection/$count"), headers={"Accept": "text/plain"}).text == str(
            len(seed["BookingCollection"]))

    def test_function_and_action_imports(self, v4, seed):
        agency = call(v4.url("GetAgencyDetails(agencynum='00000003')"))
        assert agency.status == 200 and agency.json()["name"] == "100% Fun Tours"
        details = call(v4.url("GetFlightDetails(carrid='AA',connid='0017',fldate=2016-01-20)")).json()
        flight = next(f for f in seed["FlightCollection"] if flight_key(f) == ("AA", "0017", "2016-01-20"))
        assert details["seatsfree"] == flight["seatsmax"] - flight["seatsocc"]
        assert details["distanceunit"] == "KM"
        reply = call(v4.url("UpdateAgencyPhoneNo"), "POST",
                     {"agencynum": "00000003", "telephone": "+49 69 4711"})
        assert reply.status == 200 and reply.json()["telephone"] == "+49 69 4711"
        assert reply.header("ETag") == 'W/"2"'
        assert call(v4.url("TravelagencyCollection('00000003')")).json()["telephone"] == "+49 69 4711"
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
        rows = v2_results(call(v2.url("TravelagencyCollection?$filter=" + q("country eq 'US'")), headers=JSON))
        assert {r["agencynum"] for r in rows} == agencies(seed, lambda a: a["country"] == "US")
        rows = v2_results(call(v2.url("TravelagencyCollection?$filter=" + q("city eq 'Beijing'")), headers=JSON))
        assert {r["agencynum"] for r in rows} == agencies(seed, lambda a: a["city"] == "Beijing")

    def test_filter_substringof(self, v2, seed):
        rows = v2_results(call(v2.url("TravelagencyCollection?$filter=" + q("substringof('Travel',name)")),
                               headers=JSON))
        assert {r["agencynum"] for r in rows} == agencies(seed, lambda a: "Travel" in (a["name"] or ""))
        rows = v2_results(call(v2.url("TravelagencyCollection?$filter=" + q("substringof('%',name)")),
                               headers=JSON))
        assert [r["name"] for r in rows] == ["100% Fun Tours"]

    def test_quirk_filter_ne_drops_nulls_but_wildcards_are_literal(self, v2, seed):
        # OData: null ne 'Rome' is true. mock-sap translates to SQL `<>` and loses the null row.
        rows = v2_results(call(v2.url("TravelagencyCollection?$filter=" + q("city ne 'Rome'")), headers=JSON))
        assert {r["agencynum"] for r in rows} == agencies(
            seed, lambda a: a["city"] is not None and a["city"] != "Rome")
        rows = v2_results(call(v2.url("TravelagencyCollection?$filter=" + q("startswith(name,'rome')")),
                               headers=JSON))
        assert [r["name"] for r in rows] == ["rome travel"]
        rows = v2_results(call(v2.url("TravelagencyCollection?$filter=" + q("substringof('_',name)")),
                               headers=JSON))
        assert [r["name"] for r in rows] == ["Sunny_Side Reisen"]

    def test_filter_datetime(self, v2, seed):
        url = v2.url("FlightCollection?$filter=" + q("fldate gt datetime'2013-09-16T00:00'"))
        rows = v2_results(call(url, headers=JSON))
        expected = {flight_key(f) for f in seed["FlightCollection"] if f["fldate"] > "2013-09-16"}
        assert {(r["carrid"], r["connid"], v2_date(r["fldate"]).date().isoformat()) for r in rows} == expected
        url = v2.url("FlightCollection?$filter=" + q("price lt 1000.5M and seatsmax ge 300"))
        rows = v2_results(call(url, headers=JSON))
        expected = {flight_key(f) for f in seed["FlightCollection"] if f["price"] is not None
                    and Decimal(f["price"]) < Decimal("1000.5") and f["seatsmax"] >= 300}
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
        reply = call(v2.url("TravelagencyCollection/$count?$filter=" + q("country eq 'DE'")))
        assert int(reply.text) == len(agencies(seed, lambda a: a["country"] == "DE"))

    def test_expand_and_composite_key(self, v2, seed):
        key = ("AA", "0017", "2016-01-20")
        url = v2.url("FlightCollection(carrid='AA',connid='0017',fldate=datetime'2016-01-20T00:00:00')"
                     "?$expand=FlightCarrier,FlightBookings")
        flight = call(url, headers=JSON).json()["d"]
        assert flight["FlightCarrier"]["carrname"] == "American Airlines"
        assert {b["bookid"] for b in flight["FlightBookings"]["results"]} == bookings_of_flight(seed, key)
        agency = call(v2.url("TravelagencyCollection('00000001')?$expand=AgencyBookings"), headers=JSON).json()["d"]
        assert {b["bookid"] for b in agency["AgencyBookings"]["results"]} == {
            b["bookid"] for b in seed["BookingCollection"] if b["agencynum"] == "00000001"}

    def test_key_reads_and_wire_shapes(self, v2, seed):
        agency = call(v2.url("TravelagencyCollection('00000001')"), headers=JSON)
        assert agency.status == 200
        d = agency.json()["d"]
        assert d["creditlimit"] == "9999999999999.99"            # V2 Decimal: a string
        assert agency.header("ETag") == d["__metadata"]["etag"]
        seed_agency = seed["TravelagencyCollection"][0]
        assert v2_date(d["ChangedAt"]).isoformat(timespec="milliseconds") + "Z" == seed_agency["ChangedAt"]
        assert call(v2.url("TravelagencyCollection('99999999')"), headers=JSON).status == 404
        booking = call(v2.url("BookingCollection(carrid='%s',connid='%s',fldate=datetime'%sT00:00:00',bookid='%s')"
                              % (*flight_key(seed["BookingCollection"][0]), "00000001")), headers=JSON).json()["d"]
        assert booking["passname"] == "王小明" and booking["smoker"] is seed["BookingCollection"][0]["smoker"]

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
        denied = call(url, "POST", {"agencynum": "90000001", "name": "No Token"}, JSON)
        assert denied.status == 403 and denied.header("x-csrf-token") == "Required"
        on_metadata = call(v2.url("$metadata"), headers={"X-CSRF-Token": "Fetch"})
        assert on_metadata.status == 200 and len(on_metadata.header("x-csrf-token")) > 10
        opener, token = csrf_session(v2)
        reply = call(url, "POST", {"agencynum": "90000001", "name": "With Token"},
                     {"X-CSRF-Token": token, **JSON}, opener=opener)
        assert reply.status == 201, reply
        assert reply.json()["d"]["name"] == "With Token"
        assert call(url, "POST", {"agencynum": "90000002"}, {"X-CSRF-Token": "bogus", **JSON}).status == 403

    def test_quirk_csrf_token_not_bound_to_session(self, v2):
        # Any token mock-sap issued is accepted, with or without the session cookie it set.
        fetched = call(v2.url(""), headers={"X-CSRF-Token": "Fetch", **JSON})
        assert fetched.header("Set-Cookie").startswith("SAP_SESSIONID_")
        reply = call(v2.url("TravelagencyCollection"), "POST", {"agencynum": "90000009", "name": "x"},
                     {"X-CSRF-Token": fetched.header("x-csrf-token"), **JSON})
        assert reply.status == 201

    def test_quirk_no_server_keys_and_put_blanks(self, v2):
        reply = v2_write(v2, "TravelagencyCollection", "POST", {"name": "No Key"})
        assert reply.status == 400 and "agencynum" in reply.json()["error"]["message"]["value"]
        assert v2_write(v2, "TravelagencyCollection('00000002')", "PUT", {"name": "Put"}).status == 204
        d = call(v2.url("TravelagencyCollection('00000002')"), headers=JSON).json()["d"]
        assert (d["name"], d["city"], d["postbox"], d["creditlimit"]) == ("Put", "", "", "0.00")

    def test_create_merge_delete_and_etags(self, v2):
        reply = v2_write(v2, "TravelagencyCollection", "POST",
                         {"agencynum": "90000001", "name": "Neu", "creditlimit": "-5.5"})
        assert reply.status == 201
        created = reply.json()["d"]
        assert created["creditlimit"] == "-5.50" and created["ChangedAt"].startswith("/Date(")
        path = "TravelagencyCollection('90000001')"
        etag = created["__metadata"]["etag"]
        ok = v2_write(v2, path, "MERGE", {"name": "Neu 2"}, {"If-Match": etag})
        assert ok.status == 204
        now = call(v2.url(path), headers=JSON)
        assert now.json()["d"]["name"] == "Neu 2" and now.header("ETag") != etag
        assert v2_write(v2, path, "MERGE", {"name": "Neu 3"}, {"If-Match": etag}).status == 412
        assert v2_write(v2, path, "PATCH", {"name": "Neu 4"}).status == 204   # lenient: no 428
        assert v2_write(v2, path, "DELETE", headers={"If-Match": etag}).status == 412
        assert v2_write(v2, path, "DELETE").status == 204
        assert call(v2.url(path), headers=JSON).status == 404

    def test_require_if_match_gives_428(self, seed):
        with backends.start_v2(csrf=False, data="small", require_if_match=True) as strict:
            url = strict.url("CarrierCollection('AA')")
            assert call(url, "MERGE", {"carrname": "X"}, JSON).status == 428
            etag = call(url, headers=JSON).header("ETag")
            assert call(url, "MERGE", {"carrname": "X"}, {"If-Match": etag, **JSON}).status == 204

    def test_batch_changeset(self, v2):
        boundary, changeset = "batch_" + uuid.uuid4().hex, "changeset_" + uuid.uuid4().hex
        def op(body):
            return (f"--{changeset}\r\nContent-Type: application/http\r\n"
                    "Content-Transfer-Encoding: binary\r\n\r\n"
                    "POST TravelagencyCollection HTTP/1.1\r\nContent-Type: application/json\r\n"
                    "Accept: application/json\r\n\r\n" + json.dumps(body) + "\r\n")
        payload = (f"--{boundary}\r\nContent-Type: multipart/mixed; boundary={changeset}\r\n\r\n"
                   + op({"agencynum": "90000001", "name": "B1"}) + op({"agencynum": "90000002", "name": "B2"})
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
            (1, "POST", "TravelagencyCollection", {"agencynum": "90000001", "name": "Ref"}),
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
            "agencynum": "00000001", "smoker": True, "luggweight": "12.5", "passname": "Zoë"})
        assert reply.status == 201
        d = reply.json()["d"]
        assert (d["luggweight"], d["smoker"], d["fldate"]) == ("12.5000", True, "/Date(1453248000000)/")
        got = v2_results(call(v2.url("TravelagencyCollection('00000001')/AgencyBookings"), headers=JSON))
        assert "90000002" in {b["bookid"] for b in got}
        assert len(got) == 1 + sum(b["agencynum"] == "00000001" for b in seed["BookingCollection"])

    def test_delta(self, v2, seed):
        first = call(v2.url("TravelagencyCollection?$filter=" + q("country eq 'DE'")),
                     headers={"Prefer": "odata.track-changes", **JSON})
        body = first.json()["d"]
        assert {r["agencynum"] for r in body["results"]} == agencies(seed, lambda a: a["country"] == "DE")
        link = body["__delta"]
        assert "!deltatoken=" in link and "$filter=" in link       # keeps the defining filter
        changed = v2_write(v2, "TravelagencyCollection('00000003')", "MERGE", {"name": "Geändert"})
        assert changed.status == 204
        assert v2_write(v2, "TravelagencyCollection('00000004')", "DELETE").status == 204
        assert v2_write(v2, "TravelagencyCollection('00000001')", "MERGE", {"name": "US"}).status == 204
        delta = call(link, headers=JSON).json()["d"]
        rows = [r for r in delta["results"] if not r["__metadata"].get("deleted")]
        deleted = [r for r in delta["results"] if r["__metadata"].get("deleted")]
        assert [(r["agencynum"], r["name"]) for r in rows] == [("00000003", "Geändert")]
        assert [r["__metadata"]["uri"].rsplit("/", 1)[1] for r in deleted] == [
            "TravelagencyCollection('00000004')"]
        assert delta["__delta"] != link

    def test_reset_restores_seed(self, v2, seed):
        assert v2_write(v2, "TravelagencyCollection('00000002')", "DELETE").status == 204
        v2.reset()
        d = call(v2.url("TravelagencyCollection('00000002')"), headers=JSON).json()["d"]
        assert d["name"] == "O'Brien & Co Travel"
        assert int(call(v2.url("BookingCollection/$count")).text) == len(seed["BookingCollection"])

    def test_function_imports(self, v2, seed):
        reply = call(v2.url("GetAgencyDetails?agencynum='00000003'"), headers=JSON)
        assert reply.status == 200 and reply.json()["d"]["name"] == "100% Fun Tours"
        reply = call(v2.url("GetFlightDetails?carrid='AA'&connid='0017'&fldate=datetime'2016-01-20T00:00:00'"),
                     headers=JSON)
        details = reply.json()["d"]["GetFlightDetails"]
        flight = next(f for f in seed["FlightCollection"] if flight_key(f) == ("AA", "0017", "2016-01-20"))
        assert details["seatsfree"] == flight["seatsmax"] - flight["seatsocc"]
        before = call(v2.url("TravelagencyCollection('00000003')"), headers=JSON).header("ETag")
        path = "UpdateAgencyPhoneNo?agencynum='00000003'&telephone=" + q("'+49 69 4711'")
        assert call(v2.url(path), "POST", headers=JSON).status == 403        # CSRF applies
        reply = v2_write(v2, path, "POST")
        assert reply.status == 200 and reply.json()["d"]["telephone"] == "+49 69 4711"
        assert call(v2.url("TravelagencyCollection('00000003')"), headers=JSON).header("ETag") != before
        assert call(v2.url(path), "GET", headers=JSON).status == 405


# =========================================================================== the seed scenarios

# The URLs of the project's normative scenarios (the SAP blog posts in the seeds), character for
# character. On the wire only the spaces are percent-encoded, as every HTTP client must.
SEED_US = "TravelagencyCollection?$filter=country eq 'US'"            # the defining request
SEED_BEIJING = "TravelagencyCollection?$filter=city eq 'Beijing'"
SEED_ROME = "TravelagencyCollection?$filter=city eq 'Rome'"
SEED_FLIGHTS = "FlightCollection?$filter=fldate gt datetime'2013-09-16T00:00'"   # V2 literal


def verbatim(backend, seed_url: str) -> str:
    wire = seed_url.replace(" ", "%20")
    assert urllib.parse.unquote(wire) == seed_url
    return backend.url(wire)


def test_seed_v4_defining_request_us(v4, seed):
    got, _ = v4_read_all(verbatim(v4, SEED_US))
    expected = agencies(seed, lambda a: a["country"] == "US")
    assert expected and {a["agencynum"] for a in got} == expected
    assert len(got) == len(expected) and all(a["country"] == "US" for a in got)


def test_seed_v4_city_filters(v4, seed):
    for url, city in ((SEED_BEIJING, "Beijing"), (SEED_ROME, "Rome")):
        got, _ = v4_read_all(verbatim(v4, url))
        expected = agencies(seed, lambda a: a["city"] == city)
        assert expected and {a["agencynum"] for a in got} == expected, city
        assert all(a["city"] == city for a in got)


def test_seed_v2_defining_request_us_json(v2, seed):
    reply = call(verbatim(v2, SEED_US) + "&$format=json")
    assert reply.header("Content-Type").startswith("application/json")
    rows = v2_results(reply)
    expected = agencies(seed, lambda a: a["country"] == "US")
    assert expected and {r["agencynum"] for r in rows} == expected
    assert len(rows) == len(expected) and all(r["country"] == "US" for r in rows)


def test_seed_v2_city_filters(v2, seed):
    for url, city in ((SEED_BEIJING, "Beijing"), (SEED_ROME, "Rome")):
        rows = v2_results(call(verbatim(v2, url), headers=JSON))
        expected = agencies(seed, lambda a: a["city"] == city)
        assert expected and {r["agencynum"] for r in rows} == expected, city


def test_seed_v2_flights_after_2013_09_16(v2, seed):
    rows = v2_results(call(verbatim(v2, SEED_FLIGHTS), headers=JSON))
    got = [(r["carrid"], r["connid"], v2_date(r["fldate"]).date().isoformat()) for r in rows]
    flights = {flight_key(f) for f in seed["FlightCollection"]}
    expected = {k for k in flights if k[2] > "2013-09-16"}
    assert len(got) == len(set(got)) and set(got) == expected
    # The data straddles the date, and its boundary: the flight on 2013-09-16 itself is not after.
    assert expected and flights - expected
    assert ("LH", "0400", "2013-09-17") in expected and ("LH", "0400", "2013-09-16") not in expected


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


def test_v4_page_deltas_pages_a_delta_answer_and_puts_its_delta_link_last():
    """`--page-deltas N`: odatapy answers a delta in one page; the test service cuts it in pages of N
    linked by `$skiptoken`, the delta link on the last page only."""
    with backends.start_v4(page_size=5, page_deltas=3) as server:
        prefer = {"Accept": "application/json", "Prefer": "odata.track-changes"}

        def get(url: str) -> dict:
            with urllib.request.urlopen(urllib.request.Request(url, headers=prefer), timeout=30) as response:
                return json.loads(response.read())

        delta_link = get(server.service_root + "BookingCollection")["@odata.deltaLink"]
        bookings = get(server.service_root + "BookingCollection?$top=5")["value"]
        for booking in bookings:
            key = "carrid='{carrid}',connid='{connid}',fldate={fldate},bookid='{bookid}'".format(**booking)
            request = urllib.request.Request(server.service_root + f"BookingCollection({key})", method="PATCH",
                                             data=json.dumps({"passname": "Paged"}).encode(),
                                             headers={"Content-Type": "application/json", "If-Match": "*"})
            urllib.request.urlopen(request, timeout=30).close()
        pages, url = [], delta_link
        while url:
            page = get(url)
            pages.append(page)
            url = page.get("@odata.nextLink")
        assert [len(page["value"]) for page in pages] == [3, 2]
        assert "$skiptoken=3" in pages[0]["@odata.nextLink"] and "@odata.deltaLink" not in pages[0]
        assert "@odata.deltaLink" in pages[-1]
        assert {entry["passname"] for page in pages for entry in page["value"]} == {"Paged"}
