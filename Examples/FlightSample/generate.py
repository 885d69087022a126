#!/usr/bin/env python3
"""Deterministic data generator for the flight sample service (RMTSAMPLEFLIGHT).

    python3 Examples/FlightSample/generate.py [--agencies N] [--carriers N] [--flights N]
                                              [--bookings N] [--seed S] [--output FILE]

Writes one JSON document (to stdout, or to FILE):

    {
    "TravelagencyCollection": [
    {"agencynum": "00000001", "name": "Happy Hopping", ...},
    ...
    ],
    "CarrierCollection": [ ... ],
    "FlightCollection": [ ... ],
    "BookingCollection": [ ... ]
    }

with exactly one entity per line, so the file is valid JSON for `json.load` and can also be read
line by line (strip a trailing comma, skip lines that do not start with `{"`) without holding
a million bookings in memory. Output is streamed: memory stays flat whatever --bookings is.

Values use the OData V4 JSON representation of metadata-v4.xml: Edm.Decimal as a string at its
declared scale ("1234.50", exact), Edm.Date as "YYYY-MM-DD", Edm.DateTimeOffset as
"YYYY-MM-DDThh:mm:ss.fffZ" (UTC), Edm.Boolean as true/false, absent values as null. The V2 backend
converts them to V2 types (Edm.DateTime) itself.

The same arguments give byte-identical output (one `random.Random(seed)`, no clock, no hash order).
The first entities of each set are fixed "trick" rows (nulls, quotes, `%`, `_`, mixed case,
Unicode, negative and extreme numbers) so that every run, even a tiny one, contains them; the rest
are drawn at random. Standard library only.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
from typing import IO, Iterator

# --------------------------------------------------------------------------- reference data

CITIES = {
    "US": [("New York", "NY"), ("San Francisco", "CA"), ("Chicago", "IL"), ("Boston", "MA"),
           ("Los Angeles", "CA")],
    "DE": [("Frankfurt", "HE"), ("Berlin", "BE"), ("München", "BY"), ("Köln", "NW"),
           ("Hamburg", "HH")],
    "CN": [("Beijing", "BJ"), ("Shanghai", "SH"), ("Guangzhou", "GD"), ("Shenzhen", "GD")],
    "JP": [("Tokyo", "13"), ("Osaka", "27")],
    "IT": [("Rome", "RM"), ("Milano", "MI")],
    "FR": [("Paris", None), ("Lyon", None)],
    "GB": [("London", None), ("Manchester", None)],
    "AU": [("Sydney", "NSW"), ("Melbourne", "VIC")],
    "BR": [("São Paulo", "SP"), ("Rio de Janeiro", "RJ")],
    "CH": [("Zürich", "ZH"), ("Genève", "GE")],
    "IN": [("Mumbai", "MH"), ("Bengaluru", "KA")],
    "ZA": [("Cape Town", "WC")],
}
# Weighted: the US, Germany and China are the most common agency countries.
COUNTRY_WEIGHTS = [("US", 6), ("DE", 5), ("CN", 4), ("JP", 2), ("IT", 2), ("FR", 2), ("GB", 2),
                   ("AU", 1), ("BR", 1), ("CH", 1), ("IN", 1), ("ZA", 1)]
COUNTRY_CHOICES = [c for c, w in COUNTRY_WEIGHTS for _ in range(w)]
CURRENCY_OF = {"US": "USD", "DE": "EUR", "CN": "CNY", "JP": "JPY", "IT": "EUR", "FR": "EUR",
               "GB": "GBP", "AU": "AUD", "BR": "BRL", "CH": "CHF", "IN": "INR", "ZA": "ZAR"}
LANGU_OF = {"US": "EN", "DE": "DE", "CN": "ZH", "JP": "JA", "IT": "IT", "FR": "FR", "GB": "EN",
            "AU": "EN", "BR": "PT", "CH": "DE", "IN": "EN", "ZA": "EN"}

NAME_WORDS_A = ["Happy", "Sunny", "Globe", "Blue", "Fly", "Star", "Wander", "Royal", "Silver",
                "Pacific", "Alpen", "Nordic", "Golden", "Swift", "Easy"]
NAME_WORDS_B = ["Travel", "Tours", "Reisen", "Voyages", "Trips", "Holidays", "Journeys",
                "Getaways", "Hopping", "Viaggi"]
STREETS = ["Main Street", "Hauptstraße", "Broadway", "Chang'an Avenue", "Via del Corso",
           "Rue de Rivoli", "Oxford Street", "George St", "Avenida Paulista", "Bahnhofstrasse",
           "Marine Drive", "Long Street", "Ginza-dōri"]

# (carrid, carrname, currcode, url)
CARRIERS = [
    ("AA", "American Airlines", "USD", "http://www.aa.com"),
    ("AZ", "Alitalia", "EUR", "http://www.alitalia.it"),
    ("LH", "Lufthansa", "EUR", "http://www.lufthansa.com"),
    ("UA", "United Airlines", "USD", "http://www.ual.com"),
    ("DL", "Delta Airlines", "USD", "http://www.delta-air.com"),
    ("JL", "Japan Airlines", "JPY", "http://www.jal.co.jp"),
    ("QF", "Qantas Airways", "AUD", "http://www.qantas.com.au"),
    ("SQ", "Singapore Airlines", "SGD", "http://www.singaporeair.com"),
    ("AF", "Air France", "EUR", "http://www.airfrance.fr"),
    ("BA", "British Airways", "GBP", None),
    ("CA", "Air China", "CNY", "http://www.airchina.com.cn"),
    ("LX", "Swiss Int'l Air", "CHF", "http://www.swiss.com"),
    ("U2", "easyJet", "GBP", "http://www.easyjet.com"),
    ("NH", "All Nippon Airways", "JPY", "http://www.ana.co.jp"),
    ("SR", "Swissair_Legacy 100%", "CHF", None),
]

# (planetype, seatsmax)
PLANES = [("A319", 120), ("A320", 150), ("A321", 185), ("A330-300", 300), ("A340-600", 330),
          ("A380-800", 475), ("737-800", 160), ("747-400", 385), ("767-200", 230),
          ("777-300ER", 350), ("787-9", 280), ("DC-10-10", 380), ("CRJ-900", 76)]

FIRST_NAMES = ["Anna", "Ben", "Chen", "Dana", "Émile", "Fatima", "Günter", "Hiro", "Ingrid",
               "José", "Kai", "Lena", "Miles", "Nadia", "Olu", "Priya", "Quinn", "Rosa", "Søren",
               "Tomás", "Wei", "Yuki", "Zoë", "anna", "BEN"]
LAST_NAMES = ["Smith", "Müller", "Wang", "O'Brien", "Rossi", "Dubois", "Tanaka", "García",
              "Schmidt", "Li", "Kowalski", "Nakamura", "d'Arcy", "van der Berg", "Øster",
              "Silva", "Singh", "Brown", "MÜLLER", "smith"]
SPECIAL_PASSNAMES = ["王小明", "Anna_Lena Müller", "50% Off O'Hara", "Jean \"Johnny\" Doe"]

EPOCH_DAY = dt.date(1970, 1, 1)
FLIGHT_FIRST = dt.date(1995, 1, 1)
FLIGHT_DAYS = (dt.date(2030, 12, 31) - FLIGHT_FIRST).days
CHANGED_FIRST = dt.datetime(2010, 1, 1)
CHANGED_MS = int((dt.datetime(2025, 12, 31, 23, 59, 59) - CHANGED_FIRST).total_seconds() * 1000)

SET_ORDER = ["TravelagencyCollection", "CarrierCollection", "FlightCollection", "BookingCollection"]


# --------------------------------------------------------------------------- helpers

def dec(value: float, scale: int = 2) -> str:
    """An Edm.Decimal as the exact string at its scale."""
    return "%.*f" % (scale, value)


def changed_at(rng: random.Random) -> str:
    moment = CHANGED_FIRST + dt.timedelta(milliseconds=rng.randrange(CHANGED_MS))
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (moment.microsecond // 1000)


def flight_date(rng: random.Random) -> dt.date:
    return FLIGHT_FIRST + dt.timedelta(days=rng.randrange(FLIGHT_DAYS + 1))


# --------------------------------------------------------------------------- entity sets

def agencies(rng: random.Random, count: int) -> Iterator[dict]:
    special = [
        # name, city, country, region
        ("Happy Hopping", "New York", "US", "NY"),
        ("O'Brien & Co Travel", "Beijing", "CN", "BJ"),
        ("100% Fun Tours", "Frankfurt", "DE", "HE"),
        ("Sunny_Side Reisen", "München", "DE", "BY"),
        ("rome travel", "Rome", "IT", "RM"),
        ("北京旅行社", "Beijing", "CN", "BJ"),
        ("Null Island Tours", None, None, None),
        ("ROME TRAVEL", "Rome", "IT", "RM"),
        ("Big Apple Voyages", "New York", "US", "NY"),
        ("Ünïcødé Reisen GmbH", "Köln", "DE", "NW"),
    ]
    for i in range(1, count + 1):
        if i <= len(special):
            name, city, country, region = special[i - 1]
        else:
            country = rng.choice(COUNTRY_CHOICES)
            city, region = rng.choice(CITIES[country])
            name = "%s %s" % (rng.choice(NAME_WORDS_A), rng.choice(NAME_WORDS_B))
            if rng.random() < 0.3:
                name += " %d" % i
        credit = rng.uniform(0, 500000)
        if i == 1:
            credit_text = "9999999999999.99"          # the largest Decimal(15,2)
        elif i == 5 or rng.random() < 0.05:
            credit_text = dec(-rng.uniform(1, 20000))  # overdrawn
        elif rng.random() < 0.05:
            credit_text = None
        else:
            credit_text = dec(credit)
        null_row = country is None
        yield {
            "agencynum": "%08d" % i,
            "name": name,
            "street": None if null_row else "%s %d" % (rng.choice(STREETS), rng.randint(1, 999)),
            "postbox": None if null_row or rng.random() < 0.7 else "PB %d" % rng.randint(1, 9999),
            "postcode": None if null_row else "%05d" % rng.randint(1000, 99999),
            "city": city,
            "country": country,
            "region": region,
            "telephone": None if null_row or rng.random() < 0.1
            else "+%d %d-%04d" % (rng.randint(1, 99), rng.randint(100, 999), rng.randint(0, 9999)),
            "url": None if null_row or rng.random() < 0.2
            else "http://www.agency%d.example.com" % i,
            "langu": None if null_row else LANGU_OF[country],
            "currency": None if null_row else CURRENCY_OF[country],
            "creditlimit": None if null_row else credit_text,
            "ChangedAt": changed_at(rng),
        }


def carriers(rng: random.Random, count: int) -> list[dict]:
    out = []
    for i in range(count):
        if i < len(CARRIERS):
            carrid, name, currency, url = CARRIERS[i]
        else:
            carrid = "Z%02d" % (i - len(CARRIERS)) if i - len(CARRIERS) < 100 else "%03X" % i
            name = "Carrier %s" % carrid
            currency = rng.choice(["USD", "EUR", "CNY", "JPY", "GBP"])
            url = None if rng.random() < 0.3 else "http://www.%s.example.com" % carrid.lower()
        out.append({"carrid": carrid, "carrname": name, "currcode": currency, "url": url,
                    "ChangedAt": changed_at(rng)})
    return out


def flights(rng: random.Random, count: int, carrier_rows: list[dict]) -> list[dict]:
    """Flights with unique (carrid, connid, fldate); kept in memory for the bookings."""
    special = [("AA", "0017", dt.date(2016, 1, 20)), ("LH", "0400", dt.date(2013, 9, 16)),
               ("LH", "0400", dt.date(2013, 9, 17)), ("AZ", "0555", dt.date(2024, 2, 29)),
               ("UA", "3517", dt.date(1999, 12, 31))]
    known = {c["carrid"]: c for c in carrier_rows}
    seen: set = set()
    out = []
    special_iter = iter([s for s in special if s[0] in known])
    while len(out) < count:
        fixed = next(special_iter, None)
        if fixed is not None:
            carrid, connid, date = fixed
        else:
            carrid = rng.choice(carrier_rows)["carrid"]
            connid = "%04d" % rng.randint(1, 9999)
            date = flight_date(rng)
        key = (carrid, connid, date)
        if key in seen:
            continue
        seen.add(key)
        plane, seats = rng.choice(PLANES)
        roll = rng.random()
        if roll < 0.02:
            price = None
        elif roll < 0.03:
            price = "1234567890123.45"       # very large fare
        else:
            price = dec(rng.uniform(49, 9999))
        out.append({
            "carrid": carrid,
            "connid": connid,
            "fldate": date.isoformat(),
            "price": price,
            "currency": known[carrid]["currcode"],
            "planetype": plane,
            "seatsmax": seats,
            "seatsocc": rng.randint(0, seats),
            "ChangedAt": changed_at(rng),
        })
    return out


def bookings(rng: random.Random, count: int, flight_rows: list[dict],
             agency_count: int) -> Iterator[dict]:
    for i in range(1, count + 1):
        flight = flight_rows[rng.randrange(len(flight_rows))]
        fldate = dt.date.fromisoformat(flight["fldate"])
        cancelled = rng.random() < 0.08
        amount = rng.uniform(20, 5000)
        if cancelled and rng.random() < 0.5:
            amount = -amount                       # a refund
        if i <= len(SPECIAL_PASSNAMES):
            passname = SPECIAL_PASSNAMES[i - 1]
        elif rng.random() < 0.03:
            passname = None
        else:
            passname = "%s %s" % (rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES))
        yield {
            "carrid": flight["carrid"],
            "connid": flight["connid"],
            "fldate": flight["fldate"],
            "bookid": "%08d" % i,
            "customid": "%08d" % rng.randint(1, 99999),
            "custtype": rng.choice("PPPB"),
            "smoker": rng.random() < 0.1,
            "luggweight": None if rng.random() < 0.05 else dec(rng.uniform(0, 40), 4),
            "wunit": rng.choice(["KG", "KG", "KG", "LB"]),
            "invoice": rng.random() < 0.3,
            "class": rng.choice("YYYYCF"),
            "forcuram": dec(amount),
            "forcurkey": flight["currency"],
            "order_date": (fldate - dt.timedelta(days=rng.randrange(366))).isoformat(),
            "agencynum": None if agency_count == 0 or rng.random() < 0.1
            else "%08d" % rng.randint(1, agency_count),
            "passname": passname,
            "reserved": rng.random() < 0.2,
            "cancelled": cancelled,
            "ChangedAt": changed_at(rng),
        }


# --------------------------------------------------------------------------- output

def write(out: IO[str], *, agencies_n: int, carriers_n: int, flights_n: int, bookings_n: int,
          seed: int) -> None:
    if carriers_n < 1 and (flights_n or bookings_n):
        raise SystemExit("generate.py: flights need at least one carrier")
    if flights_n < 1 and bookings_n:
        raise SystemExit("generate.py: bookings need at least one flight")
    rng = random.Random(seed)
    carrier_rows = carriers(rng, carriers_n)
    flight_rows = flights(rng, flights_n, carrier_rows) if carriers_n else []
    sets = {
        "TravelagencyCollection": agencies(rng, agencies_n),
        "CarrierCollection": iter(carrier_rows),
        "FlightCollection": iter(flight_rows),
        "BookingCollection": bookings(rng, bookings_n, flight_rows, agencies_n),
    }
    encode = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode
    out.write("{\n")
    for position, name in enumerate(SET_ORDER):
        out.write('"%s": [\n' % name)
        first = True
        for entity in sets[name]:
            if not first:
                out.write(",\n")
            out.write(encode(entity))
            first = False
        out.write("\n]" if not first else "]")
        out.write(",\n" if position < len(SET_ORDER) - 1 else "\n")
    out.write("}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agencies", type=int, default=40)
    parser.add_argument("--carriers", type=int, default=12)
    parser.add_argument("--flights", type=int, default=80)
    parser.add_argument("--bookings", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--output", "-o", help="file to write (default: stdout)")
    args = parser.parse_args(argv)
    for name in ("agencies", "carriers", "flights", "bookings"):
        if getattr(args, name) < 0:
            parser.error("--%s must not be negative" % name)
    if args.carriers > 4096:
        parser.error("--carriers is at most 4096 (carrid is 3 characters)")
    kwargs = dict(agencies_n=args.agencies, carriers_n=args.carriers, flights_n=args.flights,
                  bookings_n=args.bookings, seed=args.seed)
    if args.output:
        with open(args.output, "w", encoding="utf-8", newline="\n") as out:
            write(out, **kwargs)
    else:
        sys.stdout.reconfigure(encoding="utf-8", newline="\n")
        write(sys.stdout, **kwargs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
