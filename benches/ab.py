#!/usr/bin/env python3
"""Compare ndq builds by alternated runs of one query: the wall-time median of each.

    python3 benches/ab.py RUNS QUERY FILE BINARY...

Each round runs every binary once (`BINARY [$NDQ_ARGS] -o raw QUERY FILE`, output
discarded), the order reversed every other round so that neither build always runs
first; at the end it prints each binary's median and minimum wall time and how many
different outputs it gave (1, and the same md5 prefix for every binary, when the builds
agree). Set NDQ_ARGS for extra options, e.g. NDQ_ARGS="--threads 1".
"""
import hashlib
import os
import statistics
import subprocess
import sys
import time


def run(binary: str, extra: list[str], query: str, path: str) -> tuple[float, str]:
    """One run of `binary [extra] -o raw query path`: its wall time in seconds, and the first
    8 hex digits of its output's md5."""
    start = time.perf_counter()
    done = subprocess.run(
        [binary, *extra, "-o", "raw", query, path],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    return time.perf_counter() - start, hashlib.md5(done.stdout).hexdigest()[:8]


def main() -> None:
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    runs, query, path, binaries = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
    extra = os.environ.get("NDQ_ARGS", "").split()
    times = {b: [] for b in binaries}
    outputs = {b: set() for b in binaries}
    for i in range(runs):
        for b in binaries if i % 2 == 0 else binaries[::-1]:
            seconds, output = run(b, extra, query, path)
            times[b].append(seconds * 1000)
            outputs[b].add(output)
    for b in binaries:
        print(
            f"{b}: median {statistics.median(times[b]):.1f} ms, min {min(times[b]):.1f} ms, "
            f"outputs {len(outputs[b])} ({', '.join(sorted(outputs[b]))})"
        )


if __name__ == "__main__":
    main()
