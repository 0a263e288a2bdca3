"""Medians and ratios of a bench/run.sh results file (one JSON line a run):
per query, each mode's median wall, peak RSS and CPU (user + system of the
whole process, startup included: on a shared machine steadier than wall),
and delta_scan's (and delta_scan_arrow's) wall and CPU over read_parquet's
and over the delta extension's, and its peak RSS over the extension's. Checks that the modes of a query agree on the row count."""

import json
import statistics
import sys
from collections import defaultdict


def main(path):
    runs = defaultdict(list)
    counts = defaultdict(set)
    for line in open(path):
        r = json.loads(line)
        runs[(r["query"], r["mode"])].append(r)
        counts[r["query"]].add((r["groups"], r["first_group"].split()[0 if r["query"] != "agg" else 1]))
    med = {k: {m: statistics.median(x[m] for x in v) for m in ("wall_s", "peak_rss_mib", "cpu_s")} for k, v in runs.items()}
    print(f"results: {path}")
    print("| query | mode | runs | wall (median) | peak RSS | CPU |")
    print("|---|---|---|---|---|---|")
    for (q, m), v in sorted(med.items()):
        print(f"| {q} | {m} | {len(runs[(q, m)])} | {v['wall_s']:.2f} s | {v['peak_rss_mib']:.0f} MiB | {v['cpu_s']:.2f} s |")
    print()
    print("| query | mode | wall / read_parquet (<= 1.3) | wall / delta extension (<= 1.0) | peak RSS / delta extension (<= 1.2) | CPU / read_parquet | CPU / delta extension |")
    print("|---|---|---|---|---|---|---|")
    bad = []
    for q in sorted({q for q, _ in med}):
        rp, ext = med.get((q, "read_parquet")), med.get((q, "delta_extension"))
        for mode in ("delta_scan", "delta_scan_arrow"):
            ds = med.get((q, mode))
            if not (ds and rp and ext):
                continue
            print(f"| {q} | {mode} | {ds['wall_s'] / rp['wall_s']:.2f}x | {ds['wall_s'] / ext['wall_s']:.2f}x | {ds['peak_rss_mib'] / ext['peak_rss_mib']:.2f}x | {ds['cpu_s'] / rp['cpu_s']:.2f}x | {ds['cpu_s'] / ext['cpu_s']:.2f}x |")
        if len(counts[q]) != 1:
            bad.append(f"{q}: the modes disagree: {sorted(counts[q])}")
    for b in bad:
        print(b, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
