"""The peer side of binding_vs_odatapy.py: odatapy's EDM-bound URL parser and `filter_to_sql`
(bound parameters) over Python's sqlite3, reading the engine's own store file directly.

It runs in its own venv (odatapy installed there by binding_vs_odatapy.py) and is driven over
stdin, one JSON command a line, so its rounds interleave with the binding's in the same run:

    {"urls": [...], "results": true}     -> {"results": [...]}   what each URL answers (dicts)
    {"urls": [...], "repeats": [...]}    -> {"us": [...]}        microseconds per read, each URL read so often

    python odatapy_pipeline.py STORE METADATA
"""
import json
import sqlite3
import sys
import time

from odatapy.edm.model import Edm
from odatapy.edm.xml_io import XmlEdmProvider
from odatapy.ext.sql import filter_to_sql, limit_to_sql, orderby_to_sql
from odatapy.server.uri.parser import Parser


class Pipeline:
    """URL in, dicts out: the hand-written translator a Python programmer would put over sqlite3."""

    def __init__(self, store, metadata):
        self.parser = Parser(Edm.from_provider(XmlEdmProvider(metadata)))
        # Read only, beside the engine: its tables are "es/<entity set>", one column per property.
        self.connection = sqlite3.connect(f"file:{store}?mode=ro", uri=True)

    def read(self, url):
        path, _, query = url.partition("?")
        info = self.parser.parse_uri(path, query or None)
        part = info.resource_parts[0]
        entity_type = part.entity_set.entity_type
        names, key = entity_type.property_names, entity_type.key_predicate_names
        if part.typed_keys:
            where, parameters = " AND ".join(f'"{name}" = ?' for name in part.typed_keys), list(part.typed_keys.values())
        elif info.filter is not None:
            where, parameters = filter_to_sql(info.filter.expression)
        else:
            where, parameters = "1", []
        order = ", ".join(filter(None, [orderby_to_sql(info.orderby), *(f'"{name}"' for name in key)]))
        limit, limit_parameters = limit_to_sql(info.top, info.skip)
        columns = ", ".join(f'"{name}"' for name in names)
        sql = f'SELECT {columns} FROM "es/{part.entity_set.name}" WHERE {where} ORDER BY {order} {limit}'
        rows = [dict(zip(names, row)) for row in self.connection.execute(sql, parameters + limit_parameters)]
        if part.typed_keys:
            if not rows:
                raise LookupError(f"{url}: no such entity")
            return rows[0]
        return rows


def timed_us(read, url, repeat):
    read(url)  # warm: statement cache and pages
    started = time.perf_counter()
    for _ in range(repeat):
        read(url)
    return (time.perf_counter() - started) * 1e6 / repeat


def main():
    store, metadata_path = sys.argv[1], sys.argv[2]
    with open(metadata_path, "rb") as f:
        pipeline = Pipeline(store, f.read())
    for line in sys.stdin:
        command = json.loads(line)
        if command.get("results"):
            answer = {"results": [pipeline.read(url) for url in command["urls"]]}
        else:
            answer = {"us": [timed_us(pipeline.read, url, repeat)
                             for url, repeat in zip(command["urls"], command["repeats"])]}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
