#!/usr/bin/env python3
"""`--since T 'select count(*)'` against the same count without `--since`, alternated, with
the zone-map cache off, cold (a fresh NDQ_CACHE_DIR each run) and warm; medians of wall and
CPU (user + sys) time, and each run's answer (benches/time-log.md).

    benches/time-range.py NDQ FILE T [RUNS]

T: the time leaving the last 1% of lines, found with ndq itself:
    ndq -o raw 'select @t limit 1 offset K' FILE   (K = 99% of the line count)
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

N, F, T = sys.argv[1], sys.argv[2], sys.argv[3]
RUNS = int(sys.argv[4]) if len(sys.argv) > 4 else 7
SCRATCH = tempfile.mkdtemp(prefix="ndq-time-range-")


def run(args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    start = time.perf_counter()
    p = subprocess.Popen([N, "--threads", "2", "-o", "raw"] + args + [F], stdout=subprocess.PIPE, env=e)
    out = p.stdout.read()
    _, status, usage = os.wait4(p.pid, 0)
    assert status == 0, args
    return (time.perf_counter() - start, usage.ru_utime + usage.ru_stime), out.strip().decode()


def cold():
    d = os.path.join(SCRATCH, "cold")
    shutil.rmtree(d, ignore_errors=True)
    return run(["--since", T, "select count(*)"], {"NDQ_CACHE_DIR": d})


WARM = {"NDQ_CACHE_DIR": os.path.join(SCRATCH, "warm")}
cases = {
    "no --since": lambda: run(["--no-cache", "select count(*)"]),
    "--since, cache off": lambda: run(["--no-cache", "--since", T, "select count(*)"]),
    "where @t >= 'T', cache off": lambda: run(["--no-cache", f"select count(*) where @t >= '{T}'"]),
    "--since, cold cache": cold,
    "--since, warm cache": lambda: run(["--since", T, "select count(*)"], WARM),
}
run(["--since", T, "select count(*)"], WARM)
times = {k: [] for k in cases}
answers = {k: set() for k in cases}
for _ in range(RUNS):
    for k, f in cases.items():
        t, a = f()
        times[k].append(t)
        answers[k].add(a)
shutil.rmtree(SCRATCH, ignore_errors=True)
wall0 = statistics.median(w for w, _ in times["no --since"])
cpu0 = statistics.median(c for _, c in times["no --since"])
print("| run | wall | vs no --since | CPU | vs no --since | count |")
print("|---|---|---|---|---|---|")
for k in cases:
    w = statistics.median(w for w, _ in times[k])
    c = statistics.median(c for _, c in times[k])
    print(f"| {k} | {w * 1000:.0f} ms | {w / wall0:.1%} | {c * 1000:.0f} ms | {c / cpu0:.1%} | {', '.join(sorted(answers[k]))} |")
