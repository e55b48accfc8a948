#!/usr/bin/env python3
"""Compare two ndq builds by adjacent pairs of runs: the median of their time ratios.

    python3 benches/pair.py PAIRS QUERY FILE OLD_BINARY NEW_BINARY [NDQ_OPTION...]

Each pair runs both binaries back to back (`BINARY [NDQ_OPTION...] -o raw QUERY FILE`,
output discarded), the order swapped every other pair, and takes the ratio new/old of their
wall times. On a shared machine whose speed drifts from minute to minute, a ratio of two runs
taken a second apart is steadier than medians over the whole session (`benches/ab.py`).
Prints each build's median time, the median ratio with its quartiles, and in how many pairs
the new build was faster. Give options after the binaries, e.g. `--threads 1`.
"""
import statistics
import subprocess
import sys
import time


def run(binary: str, extra: list[str], query: str, path: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [binary, *extra, "-o", "raw", query, path],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    return time.perf_counter() - start


def main() -> None:
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    pairs, query, path, old, new = int(sys.argv[1]), *sys.argv[2:6]
    extra = sys.argv[6:]
    olds, news, ratios = [], [], []
    for i in range(pairs):
        if i % 2 == 0:
            a = run(old, extra, query, path)
            b = run(new, extra, query, path)
        else:
            b = run(new, extra, query, path)
            a = run(old, extra, query, path)
        olds.append(a)
        news.append(b)
        ratios.append(b / a)
    r = sorted(ratios)
    print(
        f"old {statistics.median(olds) * 1000:.1f} ms, new {statistics.median(news) * 1000:.1f} ms, "
        f"new/old median {statistics.median(r):.4f} "
        f"(quartiles {r[len(r) // 4]:.4f}-{r[3 * len(r) // 4]:.4f}), "
        f"new faster in {sum(x < 1 for x in r)} of {pairs}"
    )


if __name__ == "__main__":
    main()
