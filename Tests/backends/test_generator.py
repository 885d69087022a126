"""The flight sample's data generator: deterministic, consistent with $metadata, and scalable."""
from __future__ import annotations

import datetime as dt
import hashlib
import json
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from decimal import Decimal

import pytest

import backends

GENERATOR = backends.SAMPLE / "generate.py"
V4 = "{http://docs.oasis-open.org/odata/ns/edm}"

# sha256 of `generate.py` with its defaults. Update it deliberately when the generator changes
# (every test that asserts on generated values recomputes them from the output, so only this
# line needs editing).
DEFAULT_SHA256 = "931ead183afde115d58d8f9e426e1f7972af26003dc4f38faa03d471fe70d428"


def run(*args: str) -> bytes:
    return subprocess.run([sys.executable, str(GENERATOR), *args], check=True,
                          capture_output=True, timeout=120).stdout


@pytest.fixture(scope="module")
def default_output() -> bytes:
    return run()


def test_same_seed_same_bytes(default_output):
    assert run() == default_output
    small = ("--agencies", "7", "--carriers", "3", "--flights", "9", "--bookings", "20")
    assert run(*small, "--seed", "5") == run(*small, "--seed", "5")
    assert run(*small, "--seed", "5") != run(*small, "--seed", "6")


def test_default_checksum_and_sizes(default_output):
    assert hashlib.sha256(default_output).hexdigest() == DEFAULT_SHA256
    data = json.loads(default_output)
    assert list(data) == ["TravelagencyCollection", "CarrierCollection", "FlightCollection",
                          "BookingCollection"]
    assert [len(v) for v in data.values()] == [40, 12, 80, 300]


def test_one_entity_per_line(default_output):
    lines = default_output.decode("utf-8").splitlines()
    entities = [json.loads(line.rstrip(",")) for line in lines if line.startswith("{\"")]
    assert len(entities) == 40 + 12 + 80 + 300


def test_counts_follow_arguments(tmp_path):
    out = tmp_path / "seed.json"
    run("--agencies", "3", "--carriers", "2", "--flights", "4", "--bookings", "0",
        "--output", str(out))
    data = json.loads(out.read_text(encoding="utf-8"))
    assert [len(v) for v in data.values()] == [3, 2, 4, 0]


def v4_types() -> dict[str, dict[str, dict]]:
    root = ET.parse(backends.METADATA_V4).getroot()
    types = {et.get("Name"): {p.get("Name"): p.attrib for p in et.findall(V4 + "Property")}
             for et in root.iter(V4 + "EntityType")}
    return {es.get("Name"): types[es.get("EntityType").split(".")[-1]]
            for es in root.iter(V4 + "EntitySet")}


def check_value(attrs: dict, value) -> None:
    t = attrs["Type"]
    if value is None:
        assert attrs.get("Nullable") != "false", attrs
        return
    if t == "Edm.String":
        assert isinstance(value, str) and len(value) <= int(attrs["MaxLength"]), (attrs, value)
    elif t == "Edm.Decimal":
        d = Decimal(value)
        scale, precision = int(attrs["Scale"]), int(attrs["Precision"])
        assert isinstance(value, str) and -d.as_tuple().exponent == scale, (attrs, value)
        assert len(d.as_tuple().digits) <= precision, (attrs, value)
    elif t == "Edm.Int32":
        assert isinstance(value, int) and -2**31 <= value < 2**31
    elif t == "Edm.Boolean":
        assert isinstance(value, bool)
    elif t == "Edm.Date":
        dt.date.fromisoformat(value)
    elif t == "Edm.DateTimeOffset":
        assert value.endswith("Z") and len(value) == 24
        dt.datetime.fromisoformat(value[:-1])
    else:
        raise AssertionError("unexpected type %s" % t)


def test_values_match_metadata_and_references_resolve(default_output):
    data = json.loads(default_output)
    types = v4_types()
    for set_name, rows in data.items():
        props = types[set_name]
        for row in rows:
            assert list(row) == list(props), set_name      # every property, in $metadata order
            for name, value in row.items():
                check_value(props[name], value)
    agencies = {a["agencynum"] for a in data["TravelagencyCollection"]}
    carriers = {c["carrid"] for c in data["CarrierCollection"]}
    flights = {(f["carrid"], f["connid"], f["fldate"]) for f in data["FlightCollection"]}
    assert len(agencies) == 40 and len(carriers) == 12 and len(flights) == 80   # unique keys
    assert {f[0] for f in flights} <= carriers
    bookings = data["BookingCollection"]
    assert len({b["bookid"] for b in bookings}) == len(bookings)
    for b in bookings:
        assert (b["carrid"], b["connid"], b["fldate"]) in flights
        assert b["agencynum"] is None or b["agencynum"] in agencies
        assert b["order_date"] <= b["fldate"]


def test_awkward_values_are_there(default_output):
    data = json.loads(default_output)
    agencies = data["TravelagencyCollection"]
    countries = {a["country"] for a in agencies}
    assert {"US", "DE", "CN", None} <= countries
    assert {"Beijing", "New York"} <= {a["city"] for a in agencies}
    names = {a["name"] for a in agencies}
    assert {"O'Brien & Co Travel", "100% Fun Tours", "Sunny_Side Reisen", "rome travel",
            "ROME TRAVEL", "北京旅行社"} <= names
    limits = [Decimal(a["creditlimit"]) for a in agencies if a["creditlimit"]]
    assert min(limits) < 0 and max(limits) == Decimal("9999999999999.99")
    amounts = [Decimal(b["forcuram"]) for b in data["BookingCollection"]]
    assert min(amounts) < 0
    years = {f["fldate"][:4] for f in data["FlightCollection"]}
    assert len(years) > 10
    assert any(f["price"] is None for f in data["FlightCollection"])
    assert "王小明" in {b["passname"] for b in data["BookingCollection"]}


@pytest.mark.parametrize("size", ["tiny", "small"])
def test_seed_scenarios_find_data(size):
    # The seed URLs (country eq 'US', city eq 'Beijing' / 'Rome', fldate gt 2013-09-16) must
    # select some rows and leave others out, even in the small sizes the tests use.
    data = backends.load_seed(size)
    agencies = data["TravelagencyCollection"]
    for name, value in (("country", "US"), ("city", "Beijing"), ("city", "Rome")):
        matching = [a for a in agencies if a[name] == value]
        assert 0 < len(matching) < len(agencies), (name, value)
    dates = {f["fldate"] for f in data["FlightCollection"]}
    assert {"2013-09-16", "2013-09-17"} <= dates
    assert any(d < "2013-09-16" for d in dates) and any(d > "2013-09-17" for d in dates)


def test_scales_to_100k_bookings_in_bounded_time_and_memory(tmp_path):
    out = tmp_path / "big.json"
    script = (
        "import resource, runpy, sys\n"
        "sys.argv = [sys.argv[1], '--bookings', '100000', '--flights', '2000',"
        " '--agencies', '1000', '--output', sys.argv[2]]\n"
        "try:\n    runpy.run_path(sys.argv[0], run_name='__main__')\n"
        "except SystemExit:\n    pass\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n")
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-c", script, str(GENERATOR), str(out)],
                            check=True, capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - started
    peak_kib = int(result.stdout.split()[-1])
    assert elapsed < 60, elapsed
    assert peak_kib < 100 * 1024, peak_kib          # streamed: far below the 40 MB output
    bookings = 0
    with open(out, encoding="utf-8") as f:
        for line in f:
            if line.startswith('{"carrid"') and '"bookid"' in line:
                bookings += 1
    assert bookings == 100000
    assert out.stat().st_size > 30 * 1024 * 1024
