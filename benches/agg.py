#!/usr/bin/env python3
"""Group-by queries of many groups: ndq builds at 1 and 2 threads against DuckDB, alternated.

    python3 benches/agg.py RUNS FILE NAME=BINARY [NAME=BINARY ...]

For each query (group by RequestPath, about 340K groups on the 1 GiB log; group by TraceId,
about 843K), each build runs `BINARY --threads T -o raw QUERY FILE` for T = 1 and 2, and
DuckDB runs the same query in SQL over `read_ndjson_auto(FILE)` with `SET threads=2`; the
commands are taken in turn, the order reversed every other round, each under
`/usr/bin/time`. Prints per command the median wall and CPU (user + system) time, the
largest maximum resident set, every wall time, and how many different outputs it gave
(DuckDB's order among equal counts may change from run to run).
"""
import statistics
import subprocess
import sys

QUERIES = {
    "RequestPath": "select RequestPath, count(*) as n group by RequestPath order by n desc limit 3",
    "TraceId": "select TraceId, count(*) as n group by TraceId order by n desc limit 3",
}


def commands(key, path, builds):
    out = {}
    for name, binary in builds:
        for threads in (1, 2):
            out[f"{name} t{threads}"] = [
                binary, "--threads", str(threads), "-o", "raw", QUERIES[key], path
            ]
    sql = (f"select {key}, count(*) as n from read_ndjson_auto('{path}') "
           f"group by {key} order by n desc limit 3")
    out["duckdb t2"] = [
        "python3", "-c",
        "import duckdb; c = duckdb.connect(); c.execute('SET threads=2'); "
        f"print(c.execute({sql!r}).fetchall())",
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
    builds = [tuple(b.split("=", 1)) for b in sys.argv[3:]]
    for key in QUERIES:
        cmds = commands(key, path, builds)
        results = {k: [] for k in cmds}
        outputs = {k: set() for k in cmds}
        for i in range(runs):
            for k in (list(cmds) if i % 2 == 0 else list(reversed(cmds))):
                wall, cpu, rss, out = run(cmds[k])
                results[k].append((wall, cpu, rss))
                outputs[k].add(out)
        print(f"## {QUERIES[key]}")
        for k, v in results.items():
            print(f"{k:14s} wall {statistics.median(x[0] for x in v):6.3f} s  "
                  f"cpu {statistics.median(x[1] for x in v):6.3f} s  "
                  f"maxrss {max(x[2] for x in v):5d} MB  "
                  f"walls {' '.join('%.2f' % x[0] for x in v)}  outputs {len(outputs[k])}")
        sys.stdout.flush()


main()
