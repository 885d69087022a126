"""Typed reads and writes with the Python binding, checked by `mypy --strict` in `make test`.

Run it against the bundled flight sample service (see the README's Quickstart for starting it):

    OOD_SERVICE=http://127.0.0.1:41234/ python bindings/python/examples/typed_example.py [STORE]

Every value has its Python type without a cast: entities are `Entity` dicts whose decimals are
`Decimal`, dates `datetime.date`, instants aware `datetime.datetime`; counts are ints.
"""
import datetime
import os
import sys
from concurrent.futures import Future
from decimal import Decimal
from typing import List

import offline_odata
from offline_odata import Entity, Mode, Result, Store


def main(service_root: str, path: str) -> None:
    with Store(path, service_root=service_root, mode=Mode.MIXED,
               defining_requests={"Flights": "FlightCollection", "Agencies": "TravelagencyCollection"}) as store:
        flights: List[Entity] = store.entities("FlightCollection?$orderby=price desc&$top=3")
        for flight in flights:
            price: Decimal = flight["price"]
            day: datetime.date = flight["fldate"]
            print(f"{flight['carrid']} {flight['connid']} on {day:%Y-%m-%d}: {price} {flight['currency']}")

        first: Entity = store.entity("TravelagencyCollection('00000001')")
        changed: datetime.datetime = first["ChangedAt"]
        print(f"{first['name']} changed {changed.isoformat()} (ETag {first.etag})")

        agencies: int = store.count("TravelagencyCollection?$filter=country eq 'US'")
        print(f"{agencies} US agencies")

        made: Entity = store.create("TravelagencyCollection", {
            "agencynum": "99000042", "name": "Typed Travel", "country": "US",
            "creditlimit": Decimal("1234567890.12"),
            "ChangedAt": datetime.datetime(2024, 5, 6, 7, 8, 9, tzinfo=datetime.timezone.utc)})
        print(f"created {made['name']}: credit limit {made['creditlimit']!r}, local {made.is_local}")

        total = Decimal(0)
        for booking in store.iter("BookingCollection"):  # one page at a time
            total += booking["forcuram"]
        print(f"bookings total {total}")

        future: "Future[Result]" = store.execute_async("GET", "CarrierCollection/$count")
        print(f"{future.result(60).text} carriers (asynchronously)")
        print(f"library {offline_odata.version()}")


if __name__ == "__main__":
    main(os.environ["OOD_SERVICE"], sys.argv[1] if len(sys.argv) > 1 else "typed-example.store")
