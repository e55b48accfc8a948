"""Many small files and gzip input: two ndq builds alternated with DuckDB, medians.

Usage: python3 benches/files.py ROUNDS DIR BEFORE_NDQ AFTER_NDQ
DIR holds many/ (the 1 GiB file cut by `split -C 256K`), logs-1g.ndjson.gz (`gzip -1`),
gz8/ (the 1 GiB file cut by `split -C 128M`, each part `gzip -1`) and logs-1g.ndjson;
optionally logs-1g.ndjson.bgz.gz (bgzip's format, `python3 benches/bgzf.py`, ndq only).
A case whose input is missing is left out.
"""
import os
import resource
import statistics
import subprocess
import sys
import time

Q = "select count(*) where Elapsed > 200"
ROUNDS, D, BEFORE, AFTER = int(sys.argv[1]), sys.argv[2].rstrip("/") + "/", sys.argv[3], sys.argv[4]
cases = {
  "one 1 GiB file": [D+"logs-1g.ndjson"],
  "4,104 files of 256 KB (dir)": [D+"many"],
  "1 GiB gzip -1, one file": [D+"logs-1g.ndjson.gz"],
}
duck = {
  "one 1 GiB file": D+"logs-1g.ndjson",
  "4,104 files of 256 KB (dir)": D+"many/*.ndjson",
  "1 GiB gzip -1, one file": D+"logs-1g.ndjson.gz",
}
if os.path.exists(D+"logs-1g.ndjson.bgz.gz"):
    cases["1 GiB bgzip, one file"] = [D+"logs-1g.ndjson.bgz.gz"]
cases = {k: v for k, v in cases.items() if os.path.exists(v[0])}
res = {}
cpu = {}
def t(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    s = time.perf_counter(); out = subprocess.run(cmd, capture_output=True, text=True); e = time.perf_counter() - s
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu.setdefault(tuple(cmd), []).append(r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime)
    return e, out.stdout.strip()
for r in range(ROUNDS):
    for name, inp in cases.items():
        for b in [BEFORE, AFTER]:
            e, o = t([b, "--threads", "2", Q] + inp); res.setdefault((name, b), []).append(e)
        if name not in duck:
            continue
        code = f"import duckdb; c=duckdb.connect(); c.execute('set threads=2'); print(c.execute(\"select count(*) from read_ndjson_auto('{duck[name]}') where Elapsed > 200\").fetchall())"
        e, o = t(["python3", "-c", code]); res.setdefault((name, "duckdb"), []).append(e)
    for b in [BEFORE, AFTER] if os.path.exists(D+"gz8") else []:
        for th in ["1", "2"]:
            e, o = t([b, "--threads", th, Q, D+"gz8"]); res.setdefault(("8 x 128 MiB gzip, threads "+th, b), []).append(e)
    print("round", r, flush=True)
for k, v in res.items():
    print(k, "median %.2f" % statistics.median(v), ["%.2f" % x for x in v], flush=True)
# CPU time (user + sys) of each command, median: steadier than wall time on a loaded machine.
for k, v in cpu.items():
    what = f"duckdb {k[-1].split(chr(39))[3]}" if k[0] == "python3" else f"{k[0]} --threads {k[2]} {os.path.basename(k[-1])}"
    print("cpu", what, "median %.2f" % statistics.median(v), flush=True)
