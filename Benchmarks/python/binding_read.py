"""Reading 50,000 entities through the Python binding into a list of dicts with typed values
(issue 24: Decimal, aware datetime), against Python's own sqlite3 + json doing the same from an
equivalent table, measured in one run (issue 9, budget <= 1.2x the baseline).

The store is made through the binding (an offline store from a small V4 $metadata, which lays out
its tables), then filled with sqlite3 as if a download had brought the 50,000 entities, the way
`insertAgencies` of Benchmarks/OfflineODataBenchmarks/ReadBenchmark.swift fills its store: 50,000
creates through the API would take about a minute here (the queue is durable), and a download
from the test backend longer; neither changes what the read does. The baseline table
holds the same entities as JSON documents (one row each), which Python fetches with sqlite3 and
parses with json, giving the decimal as Decimal and the instant as an aware datetime as the
binding does: the budget's baseline. A second baseline, for information, fetches typed columns
and zips them into dicts (no JSON at all). All three lists are checked equal before timing; the
binding's untyped JSON (`execute(...).value()`) is timed too, for information.

    OFFLINE_ODATA_LIBRARY=.build-release/release/libofflineodata.so PYTHONPATH=bindings/python \\
        .venv/bin/python Benchmarks/python/binding_read.py
"""
import json
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import datetime
from decimal import Decimal

import offline_odata
from bench_figure import report_figure

ENTITIES = 50_000
SAMPLES = 9
BUDGET = 1.2
URL = "Agencies?$orderby=ID"

METADATA = """<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
  <edmx:DataServices>
    <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="Bench">
      <EntityType Name="Agency">
        <Key><PropertyRef Name="ID"/></Key>
        <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
        <Property Name="Name" Type="Edm.String"/>
        <Property Name="City" Type="Edm.String"/>
        <Property Name="Rating" Type="Edm.Int32"/>
        <Property Name="Revenue" Type="Edm.Decimal" Precision="15" Scale="2"/>
        <Property Name="Founded" Type="Edm.DateTimeOffset"/>
      </EntityType>
      <EntityContainer Name="Container">
        <EntitySet Name="Agencies" EntityType="Bench.Agency"/>
      </EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>
"""
COLUMNS = ("ID", "Name", "City", "Rating", "Revenue", "Founded")


def entity(i):
    """The i-th entity, as it is created (and as V4 JSON gives it back)."""
    return {"ID": i, "Name": f"Agency {i}", "City": f"City{i % 20}", "Rating": i % 5,
            "Revenue": float(f"{i % 1000}.{i % 100:02d}"),
            "Founded": f"20{10 + i % 10}-0{1 + i % 9}-1{i % 9}T12:34:56Z"}


def stored_row(i):
    """The i-th entity as the store keeps it: canonical decimal text, 7-digit fractions of seconds."""
    e = entity(i)
    revenue = format(Decimal(f"{i % 1000}.{i % 100:02d}").normalize(), "f")
    return (i + 1, e["ID"], e["Name"], e["City"], e["Rating"], revenue, e["Founded"][:-1] + ".0000000Z")


def make_store(path):
    started = time.perf_counter()
    with offline_odata.Store.open(path, metadata=METADATA, mode=offline_odata.Mode.OFFLINE) as store:
        store.create("Agencies", entity(0))  # one create through the API: the table's own layout
    connection = sqlite3.connect(path)
    connection.execute('DELETE FROM "es/Agencies"')
    connection.execute("DELETE FROM ood_request_queue")
    connection.executemany('INSERT INTO "es/Agencies" ("_ood_id", "ID", "Name", "City", "Rating", "Revenue", '
                           '"Founded") VALUES (?, ?, ?, ?, ?, ?, ?)', (stored_row(i) for i in range(ENTITIES)))
    connection.commit()
    connection.close()
    return time.perf_counter() - started


def make_baseline(path):
    """Two equivalent tables: typed columns, and each entity as one JSON document."""
    connection = sqlite3.connect(path)
    connection.execute('CREATE TABLE agencies ("ID" INTEGER PRIMARY KEY, "Name" TEXT, "City" TEXT, '
                       '"Rating" INTEGER, "Revenue" TEXT, "Founded" TEXT)')
    connection.executemany("INSERT INTO agencies VALUES (?, ?, ?, ?, ?, ?)",
                           (tuple(str(v) if k == "Revenue" else v for k, v in entity(i).items())
                            for i in range(ENTITIES)))
    connection.execute('CREATE TABLE documents ("ID" INTEGER PRIMARY KEY, "body" TEXT)')
    connection.executemany("INSERT INTO documents VALUES (?, ?)",
                           ((i, json.dumps(entity(i))) for i in range(ENTITIES)))
    connection.commit()
    return connection


def read_binding(store):
    return store.get(URL)


def read_binding_untyped(store):
    return store.execute("GET", URL).value()


def read_baseline(connection):
    """sqlite3 + json: every entity's JSON document, parsed into a dict with typed values."""
    loads = json.JSONDecoder(parse_float=Decimal).decode
    instant = datetime.fromisoformat
    entities = []
    for (body,) in connection.execute('SELECT "body" FROM documents ORDER BY "ID"'):
        entity = loads(body)
        entity["Founded"] = instant(entity["Founded"])
        entities.append(entity)
    return entities


def read_columns(connection):
    """The tightest Python can do: typed columns zipped into dicts."""
    instant = datetime.fromisoformat
    return [{"ID": i, "Name": n, "City": c, "Rating": r, "Revenue": Decimal(v), "Founded": instant(f)}
            for i, n, c, r, v, f in connection.execute(
                'SELECT "ID", "Name", "City", "Rating", "Revenue", "Founded" FROM agencies ORDER BY "ID"')]


def median_ms(function, argument):
    times = []
    for _ in range(SAMPLES):
        started = time.perf_counter()
        result = function(argument)
        times.append((time.perf_counter() - started) * 1000)
        assert len(result) == ENTITIES
    return statistics.median(times), times


def main():
    folder = tempfile.mkdtemp(prefix="ood-binding-read-")
    try:
        store_path = os.path.join(folder, "bench.store")
        made = make_store(store_path)
        print(f"binding read: made the store with {ENTITIES:,} entities in {made:.2f} s")
        connection = make_baseline(os.path.join(folder, "baseline.sqlite"))
        with offline_odata.Store.open(store_path, mode=offline_odata.Mode.OFFLINE) as store:
            ours = [{k: e[k] for k in COLUMNS} for e in read_binding(store)]
            if not ours == read_baseline(connection) == read_columns(connection):
                sys.exit("binding read: the binding and the baselines disagree")
            raw = store.get(URL, raw=True)
            # Medians of blocks of samples, as the other benchmarks report them.
            binding, binding_times = median_ms(read_binding, store)
            untyped, _ = median_ms(read_binding_untyped, store)
            baseline, baseline_times = median_ms(read_baseline, connection)
            columns, _ = median_ms(read_columns, connection)
            json_only = statistics.median(
                [(lambda t: (json.loads(raw), time.perf_counter() - t)[1])(time.perf_counter()) * 1000
                 for _ in range(SAMPLES)])
        connection.close()
        ratio = binding / baseline
        verdict = "within" if ratio <= BUDGET else "OVER"
        print(f"binding read: {ENTITIES:,} entities into a list of dicts through Store.get: {binding:.1f} ms | "
              f"baseline Python sqlite3 + json from an equivalent table: {baseline:.1f} ms | "
              f"ratio {ratio:.2f} ({verdict} budget <= {BUDGET}x) | medians of {SAMPLES}")
        print(f"binding read: second baseline, sqlite3 typed columns zipped into dicts (no json): {columns:.1f} ms | "
              f"ratio {binding / columns:.2f} (for information)")
        print(f"binding read: of which json.loads of the {len(raw):,}-byte answer alone: {json_only:.1f} ms")
        print(f"binding read: the same read untyped (execute(...).value(), the JSON as sent): {untyped:.1f} ms")
        report_figure("binding-read.make-store", made, "s")
        report_figure("binding-read.dicts", binding, "ms")
        report_figure("binding-read.untyped", untyped, "ms")
        report_figure("binding-read.sqlite3-json", baseline, "ms", reference=True)
        report_figure("binding-read.sqlite3-columns", columns, "ms", reference=True)
        report_figure("binding-read.json-loads", json_only, "ms", reference=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
