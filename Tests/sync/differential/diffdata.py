#!/usr/bin/env python3
"""Deterministic seed data for the differential test: Agencies and their Bookings (metadata.xml).

    python Tests/sync/differential/diffdata.py [--agencies 600] [--bookings 1800] [--seed 5] [--output FILE]

The data is made to be awkward: nulls in every nullable column, the same word in several cases
(`Rome`, `rome`, `ROME`), LIKE wildcards (`Agency 100%`, `Agency_x0`), quotes (`O'Brien & Co`),
Unicode (`Zürich`, `北京`, emoji), negative and large numbers (Int64 beyond 2^53, negative
decimals, decimals with every digit of their scale), DateTimeOffsets in several time zones just
before and after midnight, dates across centuries. Values are written in V4 JSON form (decimals
and Int64 as JSON numbers written exactly, dates as ISO strings).
"""
from __future__ import annotations

import argparse
import datetime as dt
import decimal
import json
import random
import sys

CITIES = ["Rome", "rome", "ROME", "Berlin", "berlin", "Zürich", "ZÜRICH", "zürich", "北京", "São Paulo",
          "New York", "O'Fallon", "Köln", "Paris", "paris", "Århus", "Los Angeles", " Rome ", "Rome_1",
          "100% City", "Ōsaka"]
COUNTRIES = ["IT", "it", "DE", "CH", "CN", "US", "BR", "JP", "FR", "DK"]
SPECIAL_NAMES = ["Agency 100%", "Agency_x0", "Agency 50% off", "O'Brien & Co", "agency lower",
                 "AGENCY UPPER", "Travel 🚀 Rocket", "北京旅行社", "Zürich Reisen", "  Spaced  ",
                 "Agency%", "_underscore_", "It's a 'quote'", "Mixed Case Agency", "mixed case agency",
                 "MIXED CASE AGENCY", "a", "", "Ünïcödé Tours", "Percent %% Double"]
CUSTOMERS = ["Smith", "smith", "SMITH", "O'Neil", "Müller", "müller", "José", "李雷", "Anne-Marie",
             "50% Discount", "under_score", "Émile", "😀 Happy", "van der Berg", "D'Angelo"]
OFFSETS = [dt.timezone.utc, dt.timezone(dt.timedelta(hours=5, minutes=30)),
           dt.timezone(dt.timedelta(hours=-8)), dt.timezone(dt.timedelta(hours=14)),
           dt.timezone(dt.timedelta(hours=-12)), dt.timezone(dt.timedelta(hours=1)),
           dt.timezone(dt.timedelta(hours=-3, minutes=-30))]
BIG_INTS = [9007199254740993, -9007199254740993, 9223372036854775807, -9223372036854775807,
            2 ** 53, 2 ** 53 + 1, 1234567890123456789, -1, 0]


def maybe(rng: random.Random, value, probability: float = 0.1):
    return None if rng.random() < probability else value


def timestamp(rng: random.Random) -> str:
    """A DateTimeOffset near midnight (local to its offset) in one of several zones, ms precision."""
    zone = rng.choice(OFFSETS)
    day = dt.date(2019, 1, 1) + dt.timedelta(days=rng.randrange(0, 6 * 365))
    if rng.random() < 0.6:  # around local midnight: the UTC date differs from the local one
        minutes = rng.choice([-90, -30, -1, 0, 1, 30, 90])
        moment = dt.datetime.combine(day, dt.time(0, 0), tzinfo=zone) + dt.timedelta(minutes=minutes)
    else:
        moment = dt.datetime.combine(day, dt.time(rng.randrange(24), rng.randrange(60), rng.randrange(60)),
                                     tzinfo=zone)
    moment += dt.timedelta(milliseconds=rng.choice([0, 0, 1, 500, 999, 123]))
    text = moment.isoformat(timespec="milliseconds")
    return text.replace("+00:00", "Z")


def decimal_text(rng: random.Random, digits: int, scale: int) -> decimal.Decimal:
    if rng.random() < 0.1:
        return decimal.Decimal(rng.choice(["0", "-0.01", "0.01", "1", "-1", "100", "-100"]))
    whole = rng.randrange(10 ** rng.randrange(1, digits - scale + 1))
    fraction = rng.randrange(10 ** scale)
    sign = "-" if rng.random() < 0.3 else ""
    return decimal.Decimal(f"{sign}{whole}.{fraction:0{scale}d}")


def agency(rng: random.Random, i: int) -> dict:
    if i <= len(SPECIAL_NAMES):
        name = SPECIAL_NAMES[i - 1]
    else:
        name = rng.choice([f"Agency {i}", f"agency {i}", f"AGENCY {i}", f"Reisen {i} GmbH", f"Viaggi {i}"])
    revenue = decimal_text(rng, 15, 2)
    if i % 97 == 0:
        revenue = decimal.Decimal(rng.choice(["9999999999999.99", "-9999999999999.99"]))
    return {
        "ID": i,
        "Name": name if i <= len(SPECIAL_NAMES) else maybe(rng, name, 0.05),
        "City": maybe(rng, rng.choice(CITIES), 0.1),
        "Country": maybe(rng, rng.choice(COUNTRIES), 0.1),
        "Rating": maybe(rng, rng.randrange(-5, 11), 0.15),
        "Revenue": maybe(rng, revenue, 0.1),
        "Big": maybe(rng, rng.choice(BIG_INTS) if rng.random() < 0.3 else rng.randrange(-10 ** 12, 10 ** 12), 0.1),
        "Ratio": maybe(rng, rng.choice([0.5, -0.25, 1e-10, 123456.789, -1.5]) if rng.random() < 0.2
                       else round(rng.uniform(-1000, 1000), 6), 0.1),
        "Founded": maybe(rng, (dt.date(1899, 12, 31) + dt.timedelta(days=rng.randrange(0, 131 * 365))).isoformat(), 0.1),
        "LastChanged": maybe(rng, timestamp(rng), 0.1),
        "Active": maybe(rng, rng.random() < 0.5, 0.1),
    }


def booking(rng: random.Random, i: int, agencies: int) -> dict:
    # Agencies in the top tenth of the IDs have no bookings (empty collections for any/all).
    customer = rng.choice(CUSTOMERS)
    if rng.random() < 0.3:
        customer = f"{customer} {i}"
    return {
        "ID": i,
        "AgencyID": maybe(rng, rng.randrange(1, int(agencies * 0.9) + 1), 0.05),
        "Customer": maybe(rng, customer, 0.08),
        "Price": maybe(rng, decimal_text(rng, 18, 4), 0.08),
        "BookedAt": maybe(rng, timestamp(rng), 0.08),
        "Seats": maybe(rng, rng.randrange(-3, 21), 0.1),
    }


def generate(agencies: int = 600, bookings: int = 1800, seed: int = 5) -> dict:
    rng = random.Random(seed)
    return {
        "Agencies": [agency(rng, i) for i in range(1, agencies + 1)],
        "Bookings": [booking(rng, i, agencies) for i in range(1, bookings + 1)],
    }


def dumps(data: dict) -> str:
    """JSON with decimals written digit for digit (json.dumps would round them through float)."""
    return "".join(_iterencode(data))


def _iterencode(value):
    if isinstance(value, decimal.Decimal):
        yield str(value)
    elif isinstance(value, dict):
        yield "{"
        for n, (k, v) in enumerate(value.items()):
            if n:
                yield ","
            yield json.dumps(k, ensure_ascii=False)
            yield ":"
            yield from _iterencode(v)
        yield "}"
    elif isinstance(value, list):
        yield "["
        for n, v in enumerate(value):
            if n:
                yield ",\n" if isinstance(v, dict) else ","
            yield from _iterencode(v)
        yield "]"
    else:
        yield json.dumps(value, ensure_ascii=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agencies", type=int, default=600)
    parser.add_argument("--bookings", type=int, default=1800)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--output", default="-")
    args = parser.parse_args(argv)
    text = dumps(generate(args.agencies, args.bookings, args.seed))
    if args.output == "-":
        sys.stdout.write(text + "\n")
    else:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
