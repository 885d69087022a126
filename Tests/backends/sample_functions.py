"""Deterministic results of the flight sample's GetFlightDetails, shared by both backends."""
from __future__ import annotations

import decimal

ROUTES = [("US", "New York"), ("DE", "Frankfurt"), ("CN", "Beijing"), ("JP", "Tokyo"),
          ("IT", "Rome"), ("GB", "London"), ("US", "San Francisco"), ("SG", "Singapore")]


def flight_details(carrid: str, connid: str) -> dict:
    """Route data of a connection: countryfrom, cityfrom, countryto, cityto, flighttime,
    distance (Decimal, scale 4) and distanceunit. seatsfree is the caller's (it needs the row)."""
    number = sum(map(ord, carrid)) * 31 + (int(connid) if connid.isdigit() else len(connid))
    origin = ROUTES[number % len(ROUTES)]
    destination = ROUTES[(number // len(ROUTES) + 1 + number) % len(ROUTES)]
    if destination == origin:
        destination = ROUTES[(number + 1) % len(ROUTES)]
    distance = decimal.Decimal(500 + (number * 37) % 9500).quantize(decimal.Decimal("0.0001"))
    return {"countryfrom": origin[0], "cityfrom": origin[1], "countryto": destination[0],
            "cityto": destination[1], "flighttime": 60 + (number * 7) % 720,
            "distance": distance, "distanceunit": "KM"}
