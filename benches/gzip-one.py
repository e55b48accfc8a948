"""One large gzip member: ndq inflating it whole, ndq streaming it, and DuckDB, alternated.

Usage: python3 benches/gzip-one.py NDQ GZ [GZ8_DIR] [ROUNDS]

NDQ is a release build of ndq; GZ one `.gz` file (`gzip -1 -c logs-1g.ndjson > GZ`: one
member of 1 GiB of output); GZ8_DIR, when given (`-` for none), a directory of gzipped parts
(`split -n l/8`, each `gzip -1`), run with `--threads 1` and `--threads 2`. Each round runs
every command once, in turn; ROUNDS (default 5) rounds. Each command runs under
`/usr/bin/time`, which gives its wall time, CPU time (user + system) and peak resident set.
Printed: the medians, and the ratios of the medians (wall and CPU). Every command must give
the same count.
"""
import os
import statistics
import subprocess
import sys

Q = "select count(*) where Elapsed > 200"
NDQ, GZ = sys.argv[1], sys.argv[2]
GZ8 = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] != "-" else None
ROUNDS = int(sys.argv[4]) if len(sys.argv) > 4 else 5

duck = (
    "import duckdb; c = duckdb.connect(); c.execute('set threads=2'); c.execute('set enable_progress_bar=false'); "
    "print(c.execute(\"select count(*) from read_ndjson_auto('%s') where Elapsed > 200\")"
    ".fetchall()[0][0])" % GZ
)
cases = [
    ("ndq whole", {}, [NDQ, "--threads", "2", "-o", "csv", Q, GZ]),
    ("ndq stream", {"NDQ_INFLATE": "stream"}, [NDQ, "--threads", "2", "-o", "csv", Q, GZ]),
    ("duckdb", {}, ["python3", "-c", duck]),
]
if GZ8:
    for th in ["1", "2"]:
        cases.append((f"ndq 8 files --threads {th}", {}, [NDQ, "--threads", th, "-o", "csv", Q, GZ8]))


def run(env, cmd):
    """Wall s, CPU s, peak KB, the answer (the last line of stdout)."""
    out = subprocess.run(
        ["/usr/bin/time", "-f", "@@ %e %U %S %M"] + cmd,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )
    if out.returncode != 0:
        sys.exit(f"{cmd}: exit {out.returncode}\n{out.stderr}")
    wall, user, sys_, kb = out.stderr.strip().splitlines()[-1].split()[1:]
    return float(wall), float(user) + float(sys_), int(kb), out.stdout.strip().splitlines()[-1]


res = {name: [] for name, _, _ in cases}
answers = set()
for r in range(ROUNDS):
    for name, env, cmd in cases:
        wall, cpu, kb, answer = run(env, cmd)
        res[name].append((wall, cpu, kb))
        answers.add((name.startswith("ndq 8"), answer))
    print(f"round {r + 1} of {ROUNDS}, load average {os.getloadavg()[0]:.1f}", flush=True)

print("answers:", sorted(a for _, a in answers))
med = {}
for name, runs in res.items():
    wall = statistics.median(w for w, _, _ in runs)
    cpu = statistics.median(c for _, c, _ in runs)
    kb = max(k for _, _, k in runs)
    med[name] = (wall, cpu)
    walls = " ".join("%.2f" % w for w, _, _ in runs)
    print(f"{name:26} wall {wall:6.2f} s  cpu {cpu:6.2f} s  peak {kb / 1024:7.0f} MiB  ({walls})")


def ratio(a, b):
    wa, ca = med[a]
    wb, cb = med[b]
    print(f"{a} / {b}: wall {wa / wb:.2f}x, cpu {ca / cb:.2f}x")


ratio("duckdb", "ndq whole")
ratio("ndq stream", "ndq whole")
if GZ8:
    ratio("ndq 8 files --threads 1", "ndq 8 files --threads 2")
