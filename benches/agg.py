#!/usr/bin/env python3
"""Aggregations that hold much: ndq builds at 1 and 2 threads against DuckDB, alternated.

    python3 benches/agg.py RUNS FILE [--values | --all] NAME=BINARY [NAME=BINARY ...]

Without an option: group-by queries of many groups, top 3 by count (group by RequestPath,
377,698 groups on the 1 GiB log; group by TraceId, 1,193,367). With `--all`: the same
groups, every one written, in key order (DuckDB's query says `order by KEY`, which ndq's
group by does by itself; DuckDB fetches its rows and prints their number, ndq writes them
with `-o raw` to a pipe). With `--values`: aggregates that keep values, `count_distinct` and
`percentile`, over every line and per group. For each query,
each build runs `BINARY --threads T -o raw QUERY FILE` for T = 1 and 2, and DuckDB runs the
same query in SQL over `read_ndjson_auto(FILE)` with `SET threads=2` (`percentile(x, p)` as
`quantile_disc(x, p / 100)`); the commands are taken in turn, the order reversed every other
round, each under `/usr/bin/time`. Prints per command the median wall and CPU (user +
system) time, the largest maximum resident set, every wall time, and how many different
outputs it gave (DuckDB's order among equal counts may change from run to run).
"""
import statistics
import subprocess
import sys

# Each query as ndq runs it and as DuckDB does, FILE standing for the log's path.
def per_key(ndq, sql):
    """`ndq` and `sql` (`{key}` in them) for each key of many values."""
    return [(ndq.format(key=key), sql.format(key=key)) for key in ("RequestPath", "TraceId")]


GROUPS = per_key(
    "select {key}, count(*) as n group by {key} order by n desc limit 3",
    "select {key}, count(*) as n from read_ndjson_auto('FILE') "
    "group by {key} order by n desc limit 3")

ALL = per_key(
    "select {key}, count(*) as n group by {key}",
    "select {key}, count(*) as n from read_ndjson_auto('FILE') group by {key} order by {key}")

VALUES = [
    ("select count_distinct(TraceId)",
     "select count(distinct TraceId) from read_ndjson_auto('FILE')"),
    ("select RequestMethod, count_distinct(TraceId) as d group by RequestMethod "
     "order by RequestMethod",
     "select RequestMethod, count(distinct TraceId) as d "
     "from read_ndjson_auto('FILE') group by RequestMethod order by RequestMethod"),
    ("select percentile(Elapsed, 99)",
     "select quantile_disc(Elapsed, 0.99) from read_ndjson_auto('FILE')"),
    ("select RequestPath, percentile(Elapsed, 95) as p group by RequestPath "
     "order by p desc limit 3",
     "select RequestPath, quantile_disc(Elapsed, 0.95) as p "
     "from read_ndjson_auto('FILE') group by RequestPath order by p desc limit 3"),
]


def commands(query, sql, path, builds):
    out = {}
    for name, binary in builds:
        for threads in (1, 2):
            out[f"{name} t{threads}"] = [binary, "--threads", str(threads), "-o", "raw", query, path]
    sql = sql.replace("FILE", path)
    out["duckdb t2"] = [
        "python3", "-c",
        "import duckdb; c = duckdb.connect(); c.execute('SET threads=2'); "
        f"r = c.execute({sql!r}).fetchall(); print(r if len(r) < 100 else len(r))",
    ]
    return out


def run(cmd):
    r = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M"] + cmd,
                       capture_output=True, text=True, check=True)
    wall, user, system, rss = r.stderr.strip().splitlines()[-1].split()
    return float(wall), float(user) + float(system), int(rss) // 1024, r.stdout


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    runs, path = int(sys.argv[1]), sys.argv[2]
    rest = sys.argv[3:]
    queries = VALUES if "--values" in rest else ALL if "--all" in rest else GROUPS
    builds = [tuple(b.split("=", 1)) for b in rest if not b.startswith("--")]
    for query, sql in queries:
        cmds = commands(query, sql, path, builds)
        results = {k: [] for k in cmds}
        outputs = {k: set() for k in cmds}
        for i in range(runs):
            for k in (list(cmds) if i % 2 == 0 else list(reversed(cmds))):
                wall, cpu, rss, out = run(cmds[k])
                results[k].append((wall, cpu, rss))
                outputs[k].add(out)
        print(f"## {query}")
        for k, v in results.items():
            print(f"{k:14s} wall {statistics.median(x[0] for x in v):6.3f} s  "
                  f"cpu {statistics.median(x[1] for x in v):6.3f} s  "
                  f"maxrss {max(x[2] for x in v):5d} MB  "
                  f"walls {' '.join('%.2f' % x[0] for x in v)}  outputs {len(outputs[k])}")
        sys.stdout.flush()


main()
