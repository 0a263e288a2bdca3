"""Times one duckbench query through DuckDB's own delta extension
(delta-kernel-rs), loaded from the duckdb-extension-delta wheel, and prints
one JSON line as duckbench does: wall time of the query, the process's peak
RSS and CPU time. run.sh runs it in a process of its own, between the
duckbench modes.

  ext_bench.py TABLE QUERY_SQL [--threads N] [--profile FILE]

--profile writes DuckDB's JSON profile of the query to FILE, with the
metrics of duckbench -profile (its phases: binding, optimizers, operators).

QUERY_SQL has %s where the source goes (duckbench -print-query gives it).
"""

import argparse
import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))

from read_table import delta_extension_connection  # noqa: E402


# The metrics of duckbench's -profile (bench/duckbench/main.go).
PROFILE_SETTINGS = {k: "true" for k in (
    "LATENCY", "CPU_TIME", "PLANNER", "PLANNER_BINDING", "PHYSICAL_PLANNER", "ALL_OPTIMIZERS",
    "CUMULATIVE_OPTIMIZER_TIMING", "OPERATOR_NAME", "OPERATOR_TYPE", "OPERATOR_TIMING", "OPERATOR_CARDINALITY",
    "EXTRA_INFO")}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("table")
    p.add_argument("query")
    p.add_argument("--name", default="")
    p.add_argument("--threads", type=int, default=0)
    p.add_argument("--profile", default="")
    args = p.parse_args(argv)
    con = delta_extension_connection()
    if args.threads > 0:
        con.execute(f"SET threads = {args.threads}")
    if args.profile:
        con.execute("PRAGMA enable_profiling = 'json'")
        con.execute("SET profiling_output = '" + args.profile.replace("'", "''") + "'")
        con.execute("SET custom_profiling_settings = '" + json.dumps(PROFILE_SETTINGS) + "'")
    source = "delta_scan('" + os.path.abspath(args.table).replace("'", "''") + "')"
    start = time.monotonic()
    rows = con.execute(args.query % source).fetchall()
    wall = time.monotonic() - start
    ru = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({
        "mode": "delta_extension", "query": args.name, "wall_s": wall, "peak_rss_mib": ru.ru_maxrss / 1024,
        "cpu_s": ru.ru_utime + ru.ru_stime, "groups": len(rows), "first_group": " ".join(str(v) for v in rows[0]),
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
