#!/usr/bin/env python3
"""Read a Parquet file written by `ndq -o parquet` back with DuckDB and compare it, row by
row, with `ndq -o json` of the same query: numbers by exact decimal value, timestamps by
instant (nanoseconds, parsed here from the JSON text), text as is.

    python3 benches/parquet_check.py NDQ QUERY FILE

Prints the column types DuckDB sees, the row count and the first difference, if any
(exit 1 then). A measurement aid: DuckDB is not needed by the tests.
"""
import datetime
import decimal
import json
import subprocess
import sys
import tempfile

import duckdb


def nanos(text):
    """Nanoseconds since the epoch of RFC 3339 text (fraction to 9 digits)."""
    head, frac, zone = text[:19], "", text[19:]
    if zone.startswith("."):
        i = 1
        while i < len(zone) and zone[i].isdigit():
            i += 1
        frac, zone = zone[1:i], zone[i:]
    zone = "+00:00" if zone in ("Z", "z") else zone
    t = datetime.datetime.fromisoformat(head.replace(" ", "T") + zone)
    return int(t.timestamp()) * 10**9 + int((frac + "000000000")[:9])


def main():
    ndq, query, path = sys.argv[1:4]
    with tempfile.NamedTemporaryFile(suffix=".parquet") as out:
        subprocess.run([ndq, "-o", "parquet", query, path], stdout=out, check=True)
        rows = subprocess.run(
            [ndq, "-o", "json", query, path], capture_output=True, check=True, text=True
        ).stdout.splitlines()
        con = duckdb.connect()
        types = con.sql(f"select column_name, column_type from (describe from '{out.name}')").fetchall()
        print("types:", ", ".join(f"{n} {t}" for n, t in types))
        select = ", ".join(
            f'epoch_ns("{n}")' if t.startswith("TIMESTAMP") else f'"{n}"' for n, t in types
        )
        got = con.sql(f"select {select} from '{out.name}'").fetchall()
    print("rows:", len(got), "parquet,", len(rows), "json")
    if len(got) != len(rows):
        sys.exit(1)
    for i, (line, have) in enumerate(zip(rows, got)):
        want = json.loads(line, parse_float=decimal.Decimal, parse_int=decimal.Decimal)
        for (name, ty), value in zip(types, have):
            w = want[name]
            if ty.startswith("TIMESTAMP") and w is not None:
                w = nanos(w)
            elif isinstance(value, (int, decimal.Decimal)) and w is not None:
                value = decimal.Decimal(value)
            elif isinstance(value, str) and not isinstance(w, str) and w is not None:
                # A text column holds a number, boolean, array or object as its JSON text.
                value = json.loads(value, parse_float=decimal.Decimal, parse_int=decimal.Decimal)
            if w != value:
                print(f"row {i + 1}, column {name}: json {w!r}, parquet {value!r}")
                sys.exit(1)
    print("all values equal")


if __name__ == "__main__":
    main()
