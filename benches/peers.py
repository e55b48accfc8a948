#!/usr/bin/env python3
"""ndq against the tools one would use instead, on one NDJSON file.

    python3 benches/peers.py [--runs N] [--ndq PATH] [--tools ndq,duckdb,jq,serde] FILE

For each query below, runs

- ndq (`ndq -o raw QUERY FILE`),
- DuckDB (`read_ndjson_auto`, the plain SQL equivalent; through the `duckdb` Python module,
  in this process, when it is installed),
- jq (the plain filter, `jq -n 'reduce ...'`, when `jq` is on PATH), and
- ndq's serde baseline (`ndq bench --engine serde --runs 1 --warmup 0`: the same engine with
  every line parsed completely by serde_json),

N times each, alternated (every round runs each tool once, in a rotated order), and prints a
Markdown table of the median wall times with each tool's time as a multiple of ndq's, then
the machine (`nproc`, the CPU model from /proc/cpuinfo) and the tools' versions. The answers
of ndq, DuckDB and jq are compared (sums within a relative 1e-9, as DuckDB and jq add
doubles) and a difference is reported after the table.

Python 3 standard library only, plus `duckdb` if installed. The file should be in the page
cache (run once before timing, or use --warmup).
"""

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# name, ndq query, DuckDB SQL ({f} is the file), jq filter (run with -n over the file)
QUERIES = [
    (
        "count where Elapsed > 200",
        "select count(*) where Elapsed > 200",
        "SELECT count(*) FROM read_ndjson_auto({f}) WHERE Elapsed > 200",
        "reduce (inputs | select(.Elapsed > 200)) as $e (0; . + 1)",
    ),
    (
        "sum(Elapsed)",
        "select sum(Elapsed)",
        "SELECT sum(Elapsed) FROM read_ndjson_auto({f})",
        "reduce (inputs | .Elapsed) as $x (0; . + $x)",
    ),
    (
        "group by @l, count",
        "select @l, count(*) group by @l",
        'SELECT "@l", count(*) FROM read_ndjson_auto({f}) GROUP BY "@l"',
        'reduce inputs as $e ({}; .[$e["@l"] | tostring] += 1) | to_entries[] '
        '| "\\(.key)\\t\\(.value)"',
    ),
    (
        "match Message",
        "select count(*) where match(Message, '/api/customers')",
        "SELECT count(*) FROM read_ndjson_auto({f}) "
        "WHERE regexp_matches(Message, '/api/customers')",
        'reduce (inputs | select((.Message // "") | test("/api/customers"))) as $e (0; . + 1)',
    ),
]

TOOLS = ["ndq", "duckdb", "jq", "serde"]
HEADERS = {"ndq": "ndq", "duckdb": "DuckDB", "jq": "jq", "serde": "serde baseline"}


def sql_string(s):
    return "'" + s.replace("'", "''") + "'"


def run(cmd):
    """Run a command; its wall time in seconds and its stdout."""
    start = time.perf_counter()
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    if out.returncode != 0:
        sys.exit(f"failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr.decode()}")
    return elapsed, out.stdout.decode()


def answer(text):
    """A tool's answer in a comparable form: a number, or {key: count} for a grouping."""
    rows = [r for r in text.strip().splitlines() if r]
    if len(rows) == 1 and "\t" not in rows[0]:
        return float(rows[0]) if rows[0] not in ("", "null") else None
    groups = {}
    for r in rows:
        key, _, n = r.rpartition("\t")
        groups[key or "null"] = int(n)
    return groups


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1.0)
    return a == b


class Runner:
    def __init__(self, args):
        self.args = args
        self.file = args.file
        self.duckdb = None
        if "duckdb" in args.tools:
            try:
                import duckdb  # noqa: PLC0415 (optional)

                self.duckdb = duckdb
            except ImportError:
                print("duckdb is not installed (pip install duckdb): left out", file=sys.stderr)
        self.jq = shutil.which("jq") if "jq" in args.tools else None
        if "jq" in args.tools and not self.jq:
            print("jq is not on PATH: left out", file=sys.stderr)
        self.tmp = tempfile.TemporaryDirectory()

    def tools(self):
        out = []
        for t in self.args.tools:
            if (t == "duckdb" and not self.duckdb) or (t == "jq" and not self.jq):
                continue
            out.append(t)
        return out

    def ndq_threads(self):
        return ["--threads", str(self.args.threads)] if self.args.threads else []

    def once(self, tool, q):
        """One run of `tool` on query `q`: (seconds, answer or None)."""
        _, ndq_query, sql, jq_filter = q
        if tool == "ndq":
            t, out = run([self.args.ndq, *self.ndq_threads(), "-o", "raw", ndq_query, self.file])
            return t, answer(out)
        if tool == "serde":
            cases = os.path.join(self.tmp.name, "case.txt")
            with open(cases, "w") as f:
                f.write(ndq_query + "\n")
            cmd = [self.args.ndq, "bench", "--engine", "serde", "--runs", "1", "--warmup", "0"]
            t, _ = run([*cmd, *self.ndq_threads(), "--cases", cases, self.file])
            return t, None
        if tool == "jq":
            t, out = run([self.jq, "-n", "-r", jq_filter, self.file])
            return t, answer(out)
        if tool == "duckdb":
            con = self.duckdb.connect()
            if self.args.threads:
                con.execute(f"SET threads = {int(self.args.threads)}")
            start = time.perf_counter()
            rows = con.execute(sql.format(f=sql_string(self.file))).fetchall()
            t = time.perf_counter() - start
            con.close()
            text = "\n".join("\t".join("" if v is None else str(v) for v in r) for r in rows)
            return t, answer(text)
        raise ValueError(tool)


def machine():
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{os.cpu_count()} CPUs (`nproc`), {model}, {platform.system()} {platform.release()}"


def version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, check=False, text=True)
        return (out.stdout or out.stderr).strip().splitlines()[0]
    except (OSError, IndexError):
        return "?"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("file", help="the NDJSON file")
    p.add_argument("--runs", type=int, default=5, help="timed runs per tool and query")
    p.add_argument("--warmup", type=int, default=1, help="untimed rounds first")
    p.add_argument("--ndq", default=shutil.which("ndq") or "target/release/ndq")
    p.add_argument("--threads", type=int, help="threads for ndq and DuckDB (default: all)")
    p.add_argument(
        "--tools",
        default=",".join(TOOLS),
        type=lambda s: [t for t in s.split(",") if t],
        help="comma-separated subset of ndq,duckdb,jq,serde",
    )
    p.add_argument("--queries", help="comma-separated query numbers (1-4) to run")
    args = p.parse_args()
    if "ndq" not in args.tools:
        sys.exit("--tools must include ndq, the reference of the ratios")
    unknown = set(args.tools) - set(TOOLS)
    if unknown:
        sys.exit(f"unknown tools: {', '.join(sorted(unknown))}")
    queries = QUERIES
    if args.queries:
        queries = [QUERIES[int(i) - 1] for i in args.queries.split(",")]

    r = Runner(args)
    tools = r.tools()
    times = {(q[0], t): [] for q in queries for t in tools}
    answers = {}
    for round_ in range(args.warmup + args.runs):
        for q in queries:
            k = round_ % len(tools)
            for tool in tools[k:] + tools[:k]:
                t, a = r.once(tool, q)
                if round_ >= args.warmup:
                    times[(q[0], tool)].append(t)
                if a is not None:
                    answers.setdefault((q[0], tool), a)
        print(f"round {round_ + 1}/{args.warmup + args.runs} done", file=sys.stderr)

    size = os.path.getsize(args.file)
    print(f"File: `{args.file}`, {size / 1e6:.1f} MB. Median of {args.runs} alternated runs "
          f"(after {args.warmup} untimed), wall time; ( ) = that time over ndq's.\n")
    print("| query | " + " | ".join(HEADERS[t] for t in tools) + " |")
    print("|---|" + "---:|" * len(tools))
    for q in queries:
        base = statistics.median(times[(q[0], "ndq")])
        cells = []
        for t in tools:
            m = statistics.median(times[(q[0], t)])
            cells.append(f"{m:.3f} s" if t == "ndq" else f"{m:.3f} s ({m / base:.1f}x)")
        print(f"| `{q[1]}` | " + " | ".join(cells) + " |")
    print()
    print(f"Machine: {machine()}.")
    vers = [version([args.ndq, "--version"])]
    if r.duckdb:
        vers.append(f"DuckDB {r.duckdb.__version__} (Python module)")
    if r.jq:
        vers.append(version([r.jq, "--version"]))
    print("Versions: " + ", ".join(vers) + ".")
    print()
    bad = []
    for q in queries:
        ref = answers.get((q[0], "ndq"))
        for t in ("duckdb", "jq"):
            a = answers.get((q[0], t))
            if a is not None and not same(ref, a):
                bad.append(f"- {q[0]}: ndq {ref!r}, {HEADERS[t]} {a!r}")
    if bad:
        print("Answers that differ from ndq's:\n" + "\n".join(bad))
    else:
        print("Every tool gave ndq's answer.")


if __name__ == "__main__":
    main()
