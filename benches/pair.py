#!/usr/bin/env python3
"""Compare two ndq builds by adjacent pairs of runs: the median of their time ratios.

    python3 benches/pair.py PAIRS QUERY FILE OLD_BINARY NEW_BINARY [NDQ_OPTION...]

Each pair runs both binaries back to back (`BINARY [NDQ_OPTION...] -o raw QUERY FILE`,
output discarded), the order swapped every other pair, and takes the ratio new/old of their
wall times. On a shared machine whose speed drifts from minute to minute, a ratio of two runs
taken a second apart is steadier than medians over the whole sitting (`benches/ab.py`).
Prints each build's median time, the median ratio with its quartiles, in how many pairs
the new build was faster, and whether every run gave the same output. Give options after the
binaries, e.g. `--threads 1`.
"""
import statistics
import sys

from ab import run  # the same run as benches/ab.py: wall time and the output's md5 prefix


def main() -> None:
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    pairs, query, path, old, new = int(sys.argv[1]), *sys.argv[2:6]
    extra = sys.argv[6:]
    olds, news, ratios, outputs = [], [], [], set()
    for i in range(pairs):
        times = [0.0, 0.0]  # old, new
        for which in (0, 1) if i % 2 == 0 else (1, 0):
            times[which], output = run((old, new)[which], extra, query, path)
            outputs.add(output)
        olds.append(times[0])
        news.append(times[1])
        ratios.append(times[1] / times[0])
    r = sorted(ratios)
    print(
        f"old {statistics.median(olds) * 1000:.1f} ms, new {statistics.median(news) * 1000:.1f} ms, "
        f"new/old median {statistics.median(r):.4f} "
        f"(quartiles {r[len(r) // 4]:.4f}-{r[3 * len(r) // 4]:.4f}), "
        f"new faster in {sum(x < 1 for x in r)} of {pairs}; "
        f"outputs {'identical' if len(outputs) == 1 else 'DIFFERENT: ' + ', '.join(sorted(outputs))}"
    )


if __name__ == "__main__":
    main()
