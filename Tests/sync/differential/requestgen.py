"""Deterministic read requests for the differential test, over the seed data of diffdata.py.

`generate_requests(data, seed)` returns `Request`s: the URL in readable form (`raw`, relative to
the service root) and percent-encoded (`url`: every character of an option value that is not
plainly safe is escaped, a `+` as `%2B`, `&` and `%` inside literals too), whether the answer's
order is defined (`ordered`: a `$orderby` that ends in the key), and `disagreement`: the name of a
documented disagreement in test_differential.py's table when the request was generated to show
one, None when the store and odatapy must give the same answer.

Literals are taken from the data itself, so most filters select some rows and not all.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import random
import urllib.parse

SAFE = "$/(),:;*'@!="  # structural characters left as they are inside an option's value


@dataclasses.dataclass(frozen=True)
class Request:
    path: str
    options: tuple[tuple[str, str], ...]
    ordered: bool
    disagreement: str | None = None

    @property
    def raw(self) -> str:
        query = "&".join(f"{name}={value}" for name, value in self.options)
        return self.path + ("?" + query if query else "")

    @property
    def url(self) -> str:
        query = "&".join(f"{name}={urllib.parse.quote(value, safe=SAFE)}" for name, value in self.options)
        return self.path + ("?" + query if query else "")


# --------------------------------------------------------------------------- literals

def string_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def literal(kind: str, value) -> str:
    if value is None:
        return "null"
    if kind == "String":
        return string_literal(value)
    if kind == "Boolean":
        return "true" if value else "false"
    if kind == "Double":
        return repr(float(value))
    if kind == "Decimal":
        return str(decimal.Decimal(str(value)))
    return str(value)  # integers, Date, DateTimeOffset (ISO text as the seed has it)


AGENCY = {"ID": "Int32", "Name": "String", "City": "String", "Country": "String", "Rating": "Int32",
          "Revenue": "Decimal", "Big": "Int64", "Ratio": "Double", "Founded": "Date",
          "LastChanged": "DateTimeOffset", "Active": "Boolean"}
BOOKING = {"ID": "Int32", "AgencyID": "Int32", "Customer": "String", "Price": "Decimal",
           "BookedAt": "DateTimeOffset", "Seats": "Int32"}
NULLABLE_A = [p for p in AGENCY if p != "ID"]
NULLABLE_B = [p for p in BOOKING if p != "ID"]
OPS = ["eq", "ne", "gt", "ge", "lt", "le"]


class Generator:
    def __init__(self, data: dict, seed: int) -> None:
        self.rng = random.Random(seed)
        self.agencies = data["Agencies"]
        self.bookings = data["Bookings"]
        self.requests: list[Request] = []
        self.seen: set[str] = set()

    # -- helpers
    def value(self, rows: list[dict], prop: str, allow_null: bool = False):
        """A value of `prop` that occurs in the data (non-null unless allow_null)."""
        while True:
            v = self.rng.choice(rows)[prop]
            if v is not None or allow_null:
                return v

    def lit(self, entity: str, prop: str, allow_null: bool = False) -> str:
        types = AGENCY if entity == "A" else BOOKING
        rows = self.agencies if entity == "A" else self.bookings
        return literal(types[prop], self.value(rows, prop, allow_null))

    def add(self, path: str, *options: tuple[str, str], ordered: bool | None = None,
            disagreement: str | None = None) -> None:
        names = [n for n, _ in options]
        if ordered is None:
            ordered = "$orderby" in names
        request = Request(path, tuple(options), ordered, disagreement)
        if request.raw not in self.seen:
            self.seen.add(request.raw)
            self.requests.append(request)

    def add_filter(self, entity: str, expression: str, select: str | None = None,
                   disagreement: str | None = None) -> None:
        path = "Agencies" if entity == "A" else "Bookings"
        if select is None:
            select = self.rng.choice([None, None, "ID", "ID,Name,City,Rating" if entity == "A" else "ID,Customer,Seats"])
        options = [("$filter", expression)]
        if select:
            options.append(("$select", select))
        self.add(path, *options, disagreement=disagreement)

    # -- generators, one per feature
    def comparisons(self) -> None:
        for entity, types in (("A", AGENCY), ("B", BOOKING)):
            for prop, kind in types.items():
                ops = ["eq", "ne"] if kind == "Boolean" else OPS
                for op in ops:
                    self.add_filter(entity, f"{prop} {op} {self.lit(entity, prop)}")
                if prop != "ID":
                    self.add_filter(entity, f"{prop} eq null")
                    self.add_filter(entity, f"{prop} ne null")
                    self.add_filter(entity, f"null eq {prop}")
                    # Reversed operands and a null on the other side of an ordering operator.
                    if kind != "Boolean":
                        self.add_filter(entity, f"{self.lit(entity, prop)} lt {prop}")
        # Mixed case, wildcards, quotes and Unicode in equality.
        for text in ["Rome", "rome", "ROME", " Rome ", "Rome_1", "100% City", "Zürich", "ZÜRICH", "北京",
                     "O'Fallon", "São Paulo", "Ōsaka", "R_me", "Rom%"]:
            self.add_filter("A", f"City eq {string_literal(text)}")
            self.add_filter("A", f"City ne {string_literal(text)}", select="ID,City")
        for text in ["Agency 100%", "Agency_x0", "O'Brien & Co", "It's a 'quote'", "Travel 🚀 Rocket", "北京旅行社",
                     "  Spaced  ", "", "Percent %% Double", "Agency%"]:
            self.add_filter("A", f"Name eq {string_literal(text)}")
        self.add_filter("B", "Customer eq 'O''Neil'")
        self.add_filter("B", "Customer eq '😀 Happy'")
        # Numbers at the edges: Int64 beyond 2^53, negative and large decimals, tiny doubles.
        for big in ["9007199254740993", "9007199254740992", "-9007199254740993", "9223372036854775807",
                    "-9223372036854775807", "1234567890123456789"]:
            self.add_filter("A", f"Big eq {big}", select="ID,Big")
            self.add_filter("A", f"Big gt {big}", select="ID,Big")
        for dec in ["9999999999999.99", "-9999999999999.99", "-0.01", "0.01", "0", "100", "-100.00", "96.31"]:
            self.add_filter("A", f"Revenue eq {dec}", select="ID,Revenue")
            self.add_filter("A", f"Revenue lt {dec}", select="ID,Revenue")
        for dec in ["-0.0001", "0.0001", "12345.6789", "-12345.6789"]:
            self.add_filter("B", f"Price gt {dec}", select="ID,Price")
        for d in ["1e-10", "-1.5", "0.5", "123456.789", "-0.25"]:
            self.add_filter("A", f"Ratio eq {d}", select="ID,Ratio")
            self.add_filter("A", f"Ratio ge {d}", select="ID,Ratio")
        # Dates and DateTimeOffsets in several zones, around midnight.
        for d in ["1899-12-31", "1900-01-01", "1970-01-01", "2000-02-29", "2029-12-31"]:
            self.add_filter("A", f"Founded ge {d}", select="ID,Founded")
        for stamp in ["2023-05-15T01:30:00+05:30", "2023-05-14T20:00:00Z", "2023-05-14T12:00:00-08:00",
                      "2021-01-01T00:00:00Z", "2021-01-01T00:00:00+14:00", "2021-01-01T00:00:00-12:00",
                      "2020-06-27T13:06:10.5+05:30", "2022-12-31T23:59:59.999Z"]:
            for op in ("eq", "gt", "le"):
                self.add_filter("A", f"LastChanged {op} {stamp}", select="ID,LastChanged")
            self.add_filter("B", f"BookedAt lt {stamp}", select="ID,BookedAt")
        for _ in range(10):  # exact instants from the data, written with another offset
            for entity, prop in (("B", "BookedAt"), ("A", "LastChanged")):
                stamp = self.value(self.bookings if entity == "B" else self.agencies, prop)
                moment = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
                other = moment.astimezone(dt.timezone(dt.timedelta(hours=self.rng.choice([-7, 3, 9]))))
                self.add_filter(entity, f"{prop} eq {other.isoformat(timespec='milliseconds')}", select=f"ID,{prop}")

    def logic(self) -> None:
        for _ in range(14):
            a = f"Rating {self.rng.choice(OPS)} {self.lit('A', 'Rating')}"
            b = f"City eq {self.lit('A', 'City')}"
            c = f"Active eq {self.rng.choice(['true', 'false'])}"
            d = f"Revenue {self.rng.choice(OPS)} {self.lit('A', 'Revenue')}"
            form = self.rng.randrange(5)
            if form == 0:
                self.add_filter("A", f"{a} and {b}")
            elif form == 1:
                self.add_filter("A", f"{a} or {b}")
            elif form == 2:
                self.add_filter("A", f"({a} or {c}) and {d}")
            elif form == 3:
                self.add_filter("A", f"{c} and not ({b})")
            else:
                self.add_filter("A", f"not ({b} or {c})")
        for _ in range(6):
            self.add_filter("B", f"Seats ge {self.lit('B', 'Seats')} and Price lt {self.lit('B', 'Price')} or Customer eq null")
        # not() of eq/ne with nulls: OData treats null as a value for eq/ne, so both agree.
        self.add_filter("A", "not (City eq 'Rome')", select="ID,City")
        self.add_filter("A", "not (Rating ne 3)", select="ID,Rating")
        self.add_filter("A", "not (Active eq true)", select="ID,Active")
        self.add_filter("A", "Active", select="ID,Active")
        self.add_filter("A", "not Active", select="ID,Active")
        # not() of an ordering comparison with a null operand: documented disagreement.
        for prop in ("Rating", "Revenue", "Big", "Ratio", "Founded", "LastChanged"):
            op = self.rng.choice(["gt", "ge", "lt", "le"])
            self.add_filter("A", f"not ({prop} {op} {self.lit('A', prop)})", select=f"ID,{prop}",
                            disagreement="null-comparison-negated")
        self.add_filter("B", f"not (Seats gt {self.lit('B', 'Seats')})", select="ID,Seats",
                        disagreement="null-comparison-negated")
        self.add_filter("B", f"not (Price le {self.lit('B', 'Price')})", select="ID,Price",
                        disagreement="null-comparison-negated")

    def in_operator(self) -> None:
        self.add_filter("A", "City in ('Rome','rome','ROME')", select="ID,City")
        self.add_filter("A", "Country in ('IT','DE','it')", select="ID,Country")
        self.add_filter("A", "Rating in (1,2,3,-5)", select="ID,Rating")
        self.add_filter("A", "Name in ('Agency 100%','Agency_x0','O''Brien & Co','北京旅行社')", select="ID,Name")
        self.add_filter("B", "Seats in (0,-3,20)", select="ID,Seats")
        self.add_filter("B", "AgencyID in (1,2,3,4,5)", select="ID,AgencyID")
        self.add_filter("A", "not (Country in ('IT','DE'))", select="ID,Country", disagreement="null-comparison-negated")
        self.add_filter("B", "not (Seats in (1,2,3))", select="ID,Seats", disagreement="null-comparison-negated")
        self.add_filter("A", "ID in (1,600,601,-1)", select="ID")

    def strings(self) -> None:
        probes = ["Rome", "rome", "ROME", "%", "_", "0%", "100%", "_x", "gency", "GENCY", "'", "O'", "ü", "Ü",
                  "北京", "🚀", " ", "", "%%", "Agency", "agency"]
        for probe in probes:
            self.add_filter("A", f"contains(Name,{string_literal(probe)})", select="ID,Name")
        for probe in ["Rome", "rome", "R", "Z", "Zü", "北", " ", "100%", "Rome_"]:
            self.add_filter("A", f"startswith(City,{string_literal(probe)})", select="ID,City")
        for probe in ["0", "%", "_x0", "Co", "co", "off", "🚀 Rocket", "GmbH", ""]:
            self.add_filter("A", f"endswith(Name,{string_literal(probe)})", select="ID,Name")
        for text in ["rome", "zürich", "são paulo", "ōsaka", "århus", "köln"]:
            self.add_filter("A", f"tolower(City) eq {string_literal(text)}", select="ID,City")
        for text in ["ROME", "ZÜRICH", "PARIS", "BERLIN", "KÖLN"]:
            self.add_filter("A", f"toupper(City) eq {string_literal(text)}", select="ID,City")
        self.add_filter("A", "contains(tolower(Name),'agency')", select="ID,Name")
        self.add_filter("A", "startswith(toupper(Name),'MIXED')", select="ID,Name")
        for n in [0, 1, 4, 6, 9, 10, 11]:
            self.add_filter("A", f"length(Name) eq {n}", select="ID,Name")
        self.add_filter("A", "length(City) gt 7", select="ID,City")
        self.add_filter("B", "length(Customer) lt 5", select="ID,Customer")
        for probe, n in [("cy", 4), ("gency", 1), ("%", 10), ("_", 6), ("Rome", 0), ("ü", 1), ("x", -1)]:
            self.add_filter("A", f"indexof(Name,{string_literal(probe)}) eq {n}", select="ID,Name")
        self.add_filter("A", "indexof(City,'o') gt 1", select="ID,City")
        for start, length, text in [(0, 3, "Age"), (1, 3, "gen"), (7, None, "100%"), (2, 2, "ri"), (0, 1, "北"),
                                    (1, None, "ome"), (0, 0, "")]:
            expr = f"substring(Name,{start},{length})" if length is not None else f"substring(Name,{start})"
            self.add_filter("A", f"{expr} eq {string_literal(text)}", select="ID,Name")
        self.add_filter("A", "substring(City,1) eq 'ome'", select="ID,City")
        for a, b, text in [("City", "'x'", "Romex"), ("Name", "City", "Agency 100%Rome"), ("'A-'", "Country", "A-IT"),
                           ("City", "Country", "RomeIT"), ("Country", "'%'", "DE%")]:
            self.add_filter("A", f"concat({a},{b}) eq {string_literal(text)}", select="ID,Name,City,Country")
        self.add_filter("A", "trim(City) eq 'Rome'", select="ID,City")
        self.add_filter("A", "trim(Name) eq 'Spaced'", select="ID,Name")
        self.add_filter("A", "trim(City) ne City", select="ID,City")
        self.add_filter("B", "contains(Customer,'_')", select="ID,Customer")
        self.add_filter("B", "contains(Customer,'%')", select="ID,Customer")
        self.add_filter("B", "startswith(Customer,'smith')", select="ID,Customer")
        self.add_filter("B", "endswith(Customer,'er')", select="ID,Customer")
        self.add_filter("B", "tolower(Customer) eq 'müller'", select="ID,Customer")
        self.add_filter("A", "Name lt 'B'", select="ID,Name")
        self.add_filter("A", "City gt 'Zürich'", select="ID,City")
        self.add_filter("A", "City le 'Paris'", select="ID,City")

    def arithmetic(self) -> None:
        for expr in ["Rating add 2 eq 5", "Rating sub 3 lt 0", "Rating mul -2 gt 4", "Rating div 2 eq 1",
                     "Rating div 2 eq -1", "Rating div 3 eq -1", "Rating mod 3 eq 0", "-Rating eq 3", "Rating add Rating gt 10",
                     "Revenue add 100.5 gt 1000", "Revenue sub 0.01 lt 0", "Revenue mul 2 gt 100.5",
                     "Revenue mul -1 gt 1000000", "Revenue div 3 lt 1000", "Revenue div 2 gt 0.005",
                     "Revenue mod 2 eq 1.31", "Revenue mod 10 eq 6.31",
                     "Big sub 1 eq 9007199254740992",
                     "Big div 1000 gt 1000000", "Big mod 1000 eq 993",
                     "Ratio mul 2 gt 1", "Ratio div 4 lt -100", "Ratio add 0.5 eq 1", "Ratio sub 1.5 eq -3",
                     "ID mod 7 eq 3", "ID div 100 eq 5", "ID mul ID lt 50", "ID sub 600 eq 0"]:
            prop = expr.lstrip("-").split()[0]
            self.add_filter("A", expr, select=f"ID,{prop}")
        for expr in ["Seats add 1 gt 10", "Seats mul Seats gt 100", "Seats div 4 eq 2", "Seats mod 5 eq 0", "Seats sub 10 lt -5", "Price mul 2 lt -1000", "Price div 2 gt 1000000",
                     "Price sub 0.0001 eq 0", "Price add 1.5 gt 2", "Price mod 7 gt 6", "ID mod 9 eq 0",
                     "Seats mul Price gt 1000", "AgencyID add ID eq 300"]:
            prop = expr.split()[0]
            self.add_filter("B", expr, select=f"ID,{prop}")
        # Integer mod of a negative dividend: OData takes the sign of the dividend.
        for expr in ["Rating mod 3 eq -2", "Rating mod 3 eq -1", "Rating mod 4 eq -1", "Rating mod -3 eq 1",
                     "Rating mod 3 eq 1", "Rating mod 4 eq 2"]:
            self.add_filter("A", expr, select="ID,Rating", disagreement="integer-mod-sign")
        for expr in ["Seats mod 2 eq -1", "Seats mod 4 eq -3", "Seats mod 5 eq 4"]:
            self.add_filter("B", expr, select="ID,Seats", disagreement="integer-mod-sign")
        # Integer division or modulo by zero: an error in OData.
        self.add_filter("A", "Rating div 0 eq 1", select="ID,Rating", disagreement="integer-division-by-zero")
        self.add_filter("B", "Seats mod 0 eq 0", select="ID,Seats", disagreement="integer-division-by-zero")
        self.add_filter("A", "ID div (Rating sub Rating) eq 1", select="ID,Rating",
                        disagreement="integer-division-by-zero")
        # Issue 40: a 64-bit overflow fails (the data has Int64's bounds); Double div 0 is INF;
        # mod by zero fails for every numeric type.
        for expr in ["Big add 1 eq 9007199254740994", "Big mul 2 lt 0"]:
            self.add_filter("A", expr, select="ID,Big", disagreement="integer-overflow")
        self.add_filter("A", "Ratio div 0 gt 1", select="ID,Ratio", disagreement="double-division-by-zero")
        self.add_filter("A", "Ratio mod 0 eq 0", select="ID,Ratio", disagreement="non-integer-mod-by-zero")
        self.add_filter("A", "Revenue mod 0 eq 0", select="ID,Revenue", disagreement="non-integer-mod-by-zero")

    def date_functions(self) -> None:
        for fn, values in [("year", [1899, 1900, 1970, 2000, 2029]), ("month", [1, 2, 12]), ("day", [1, 29, 31])]:
            for v in values:
                self.add_filter("A", f"{fn}(Founded) eq {v}", select="ID,Founded")
        self.add_filter("A", "year(Founded) lt 1950 and month(Founded) ge 6", select="ID,Founded")
        # Date parts of a DateTimeOffset are evaluated in the value's own offset (the
        # specification; odatapy and the store both do). Where some value's local part and UTC
        # part fall on different sides of V, a store reading UTC would answer differently.
        parts = {"year": lambda t: t.year, "month": lambda t: t.month, "day": lambda t: t.day,
                 "hour": lambda t: t.hour, "minute": lambda t: t.minute, "second": lambda t: t.second}

        def part_filter(entity: str, prop: str, fn: str, v: int) -> None:
            self.add_filter(entity, f"{fn}({prop}) eq {v}", select=f"ID,{prop}")

        for entity, prop, functions in (("A", "LastChanged", ["month", "day", "hour", "minute"]),
                                        ("B", "BookedAt", ["hour", "day"])):
            rows = self.agencies if entity == "A" else self.bookings
            for fn in functions:  # V: the local part of a value whose UTC part differs
                for row in rows:
                    if row[prop] is None:
                        continue
                    local = dt.datetime.fromisoformat(row[prop].replace("Z", "+00:00"))
                    if parts[fn](local) != parts[fn](local.astimezone(dt.timezone.utc)):
                        part_filter(entity, prop, fn, parts[fn](local))
                        break
        for fn, v in [("year", 2023), ("second", 0), ("hour", 12), ("month", 7)]:
            part_filter("A", "LastChanged", fn, v)

    def lambdas_and_navigation(self) -> None:
        for expr in ["Bookings/any(b:b/Seats gt 18)", "Bookings/any(b:b/Seats lt 0)", "Bookings/any()",
                     "not Bookings/any()", "Bookings/all(b:b/Seats gt 0)", "Bookings/all(b:b/Seats ge -3)",
                     "Bookings/all(b:b/Customer ne null)", "Bookings/any(b:b/Customer eq null)",
                     "Bookings/any(b:contains(b/Customer,'_'))", "Bookings/any(b:startswith(b/Customer,'smith'))",
                     "Bookings/any(b:b/Price lt -1000000 and b/Seats gt 5)",
                     "Bookings/any(b:b/BookedAt gt 2024-06-01T00:00:00+05:30)",
                     "City eq 'Rome' and Bookings/any(b:b/Seats eq 0)",
                     "Bookings/any(b:b/Price gt Revenue)", "Bookings/all(b:b/AgencyID eq ID)",
                     "Bookings/any(b:b/Seats gt Rating)"]:
            self.add_filter("A", expr, select="ID")
        for expr in ["Agency/City eq 'Rome'", "Agency/City eq 'rome'", "Agency/City ne 'Rome'", "Agency/City eq null",
                     "Agency eq null", "Agency ne null", "Agency/Rating gt 5", "Agency/Active eq true",
                     "Agency/Revenue lt 0", "Agency/Big gt 9007199254740992", "contains(Agency/Name,'%')",
                     "Agency/Country eq 'IT' and Seats gt 10", "Agency/Rating eq Seats",
                     "Agency/Founded lt 1950-01-01", "tolower(Agency/City) eq 'zürich'",
                     "Agency/Bookings/any(b:b/Seats eq 20)"]:
            self.add_filter("B", expr, select="ID,AgencyID")
        # The same navigation filters in pages: the engine walks the key order with a correlated
        # test, or lists the matches first, as the statistics say; the answer is the same page.
        for expr in ["Agency/City eq 'Rome'", "Agency/Rating gt 5", "Agency/Active eq true", "Agency/Revenue lt 0",
                     "Agency/Country eq 'IT' and Seats gt 10", "Agency/City in ('Rome','Zürich')",
                     "not (Agency/City eq 'Rome')", "Agency/City eq 'Rome' or Seats gt 10"]:
            for top, skip in ((5, 0), (3, 4)):
                options = [("$filter", expr), ("$orderby", "ID"), ("$top", str(top))]
                if skip:
                    options.append(("$skip", str(skip)))
                self.add("Bookings", *options, ("$select", "ID,AgencyID"))

    def ordering(self) -> None:
        for path, props in (("Agencies", AGENCY), ("Bookings", BOOKING)):
            for prop in props:
                for direction in ("", " desc"):
                    if prop == "ID":
                        self.add(path, ("$orderby", f"ID{direction}"), ("$select", "ID"))
                    else:
                        self.add(path, ("$orderby", f"{prop}{direction},ID"), ("$select", f"ID,{prop}"))
        for order in ["Country,City desc,ID", "Active desc,Rating,ID desc", "Founded desc,Revenue,ID",
                      "Rating desc,Ratio,ID", "City,Name,ID"]:
            self.add("Agencies", ("$orderby", order), ("$select", "ID,Country,City,Name,Rating,Ratio,Active,Founded,Revenue"))
        for order in ["Agency/City,ID", "Agency/Rating desc,Price,ID", "Seats,Price desc,ID"]:
            self.add("Bookings", ("$orderby", order), ("$select", "ID,AgencyID,Price,Seats"))
        # $top/$skip with a total order.
        for _ in range(16):
            entity = self.rng.choice(["Agencies", "Bookings"])
            props = AGENCY if entity == "Agencies" else BOOKING
            prop = self.rng.choice([p for p in props if p != "ID"])
            direction = self.rng.choice(["", " desc"])
            top = self.rng.choice([1, 5, 10, 50])
            skip = self.rng.choice([0, 3, 20, 550, 1790])
            options = [("$orderby", f"{prop}{direction},ID"), ("$top", str(top))]
            if skip:
                options.append(("$skip", str(skip)))
            options.append(("$select", f"ID,{prop}"))
            self.add(entity, *options)
        self.add("Agencies", ("$filter", "Rating gt 3"), ("$orderby", "Revenue desc,ID"), ("$top", "7"), ("$skip", "2"))
        self.add("Bookings", ("$filter", "contains(Customer,'mith')"), ("$orderby", "BookedAt,ID"), ("$skip", "5"),
                 ("$top", "5"))
        self.add("Agencies", ("$orderby", "ID"), ("$top", "0"))
        self.add("Agencies", ("$orderby", "ID desc"), ("$skip", "598"))
        self.add("Agencies", ("$orderby", "ID"), ("$skip", "600"))
        self.add("Bookings", ("$orderby", "ID"), ("$top", "3"), ("$skip", "1797"))
        self.add("Agencies", ("$top", "1000"), ("$orderby", "ID"), ("$select", "ID"))

    def select_count(self) -> None:
        self.add("Agencies", ("$select", "Name,Big"), ordered=False)
        self.add("Agencies", ("$select", "*"), ordered=False)
        self.add("Agencies", ordered=False)
        self.add("Bookings", ordered=False)
        self.add("Bookings", ("$select", "Price,BookedAt"), ordered=False)
        self.add("Agencies", ("$count", "true"), ("$filter", "Rating gt 5"), ("$select", "ID"))
        self.add("Agencies", ("$count", "true"), ("$filter", "City eq 'Rome'"), ("$orderby", "ID"), ("$top", "2"))
        self.add("Bookings", ("$count", "true"), ("$filter", "Seats eq null"), ("$orderby", "ID desc"), ("$top", "3"),
                 ("$skip", "1"))
        self.add("Bookings", ("$count", "true"), ("$top", "0"), ("$orderby", "ID"))
        self.add("Agencies", ("$count", "false"), ("$filter", "Active eq false"), ("$select", "ID"))
        self.add("Agencies", ("$count", "true"), ("$filter", "contains(Name,'%')"), ("$select", "ID,Name"))

    def expand(self) -> None:
        self.add("Bookings", ("$expand", "Agency"), ("$orderby", "ID"), ("$top", "40"))
        self.add("Bookings", ("$expand", "Agency($select=ID,City,Revenue)"), ("$filter", "Seats gt 15"),
                 ("$select", "ID,Seats"))
        self.add("Bookings", ("$expand", "Agency"), ("$filter", "AgencyID eq null"), ("$select", "ID,AgencyID"))
        self.add("Bookings", ("$expand", "Agency($select=Name)"), ("$filter", "Agency/City eq 'Zürich'"))
        self.add("Bookings", ("$expand", "Agency($expand=Bookings($select=ID;$orderby=ID))"),
                 ("$orderby", "ID"), ("$top", "5"), ("$select", "ID"))
        self.add("Agencies", ("$expand", "Bookings"), ("$orderby", "ID"), ("$top", "20"))
        self.add("Agencies", ("$expand", "Bookings"), ("$filter", "ID ge 550"), ("$select", "ID"))
        self.add("Agencies", ("$expand", "Bookings($select=ID,Price)"), ("$filter", "City eq 'rome'"),
                 ("$select", "ID,City"))
        for nested in ["$filter=Seats gt 5;$orderby=Price desc,ID;$top=2;$select=ID,Price",
                       "$orderby=BookedAt desc,ID;$top=1",
                       "$filter=contains(Customer,'_');$select=ID,Customer",
                       "$filter=Seats eq null;$orderby=ID",
                       "$orderby=Seats,ID;$skip=1;$top=2;$select=ID,Seats",
                       "$filter=Price lt 0 and Seats ne null;$orderby=ID desc",
                       "$count=true;$orderby=ID;$top=3;$select=ID",
                       "$count=true;$filter=Seats gt 5;$orderby=Price,ID;$skip=1;$top=1;$select=ID,Price",
                       "$count=true;$filter=Customer eq null",
                       "$orderby=Customer desc,ID;$select=ID,Customer",
                       "$filter=BookedAt lt 2022-01-01T00:00:00-08:00;$orderby=ID",
                       "$expand=Agency($select=ID,Name);$orderby=ID;$top=2;$select=ID"]:
            self.add("Agencies", ("$expand", f"Bookings({nested})"), ("$orderby", "ID"), ("$top", "60"),
                     ("$select", "ID,Name"))
        self.add("Agencies", ("$expand", "Bookings($filter=Seats gt 10;$orderby=ID)"),
                 ("$filter", "Bookings/any(b:b/Seats gt 10)"), ("$select", "ID"), ("$count", "true"))
        self.add("Agencies", ("$expand", "Bookings($orderby=Price,ID;$top=3)"),
                 ("$orderby", "Rating desc,ID"), ("$top", "15"), ("$skip", "5"))

    def random_filters(self, count: int) -> None:
        """Random conjunctions/disjunctions of comparisons, to reach `count` requests in all."""
        while len(self.requests) < count:
            entity = self.rng.choice(["A", "B"])
            types = AGENCY if entity == "A" else BOOKING
            parts = []
            for _ in range(self.rng.randrange(1, 4)):
                prop = self.rng.choice(list(types))
                kind = types[prop]
                op = self.rng.choice(["eq", "ne"] if kind == "Boolean" else OPS)
                parts.append(f"{prop} {op} {self.lit(entity, prop, allow_null=op in ('eq', 'ne'))}")
            joiner = self.rng.choice([" and ", " or "])
            expression = joiner.join(parts)
            path = "Agencies" if entity == "A" else "Bookings"
            options = [("$filter", expression)]
            if self.rng.random() < 0.5:
                prop = self.rng.choice(list(types))
                options += [("$orderby", f"{prop}{self.rng.choice(['', ' desc'])},ID"),
                            ("$top", str(self.rng.choice([3, 10, 25]))), ("$skip", str(self.rng.choice([0, 2])))]
            self.add(path, *options)


def generate_requests(data: dict, seed: int = 11, count: int = 420) -> list[Request]:
    generator = Generator(data, seed)
    generator.comparisons()
    generator.logic()
    generator.in_operator()
    generator.strings()
    generator.arithmetic()
    generator.date_functions()
    generator.lambdas_and_navigation()
    generator.ordering()
    generator.select_count()
    generator.expand()
    generator.random_filters(count)
    return generator.requests
