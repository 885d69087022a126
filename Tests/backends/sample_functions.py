"""Deterministic results of the flight sample's GetFlightDetails, shared by both backends."""
from __future__ import annotations

import decimal

ROUTES = [("US", "New York"), ("DE", "Frankfurt"), ("CN", "Beijing"), ("JP", "Tokyo"),
          ("IT", "Rome"), ("GB", "London"), ("US", "San Francisco"), ("SG", "Singapore")]


def flight_details(carrid: str, connid: str) -> dict:
    """Route data of a connection: countryFrom, cityFrom, countryTo, cityTo, flightTime,
    distance (Decimal, scale 4) and distanceUnit. seatsFree is the caller's (it needs the row)."""
    number = sum(map(ord, carrid)) * 31 + (int(connid) if connid.isdigit() else len(connid))
    origin = ROUTES[number % len(ROUTES)]
    destination = ROUTES[(number // len(ROUTES) + 1 + number) % len(ROUTES)]
    if destination == origin:
        destination = ROUTES[(number + 1) % len(ROUTES)]
    distance = decimal.Decimal(500 + (number * 37) % 9500).quantize(decimal.Decimal("0.0001"))
    return {"countryFrom": origin[0], "cityFrom": origin[1], "countryTo": destination[0],
            "cityTo": destination[1], "flightTime": 60 + (number * 7) % 720,
            "distance": distance, "distanceUnit": "KM"}
