"""The command line every engine's upsert program of the upsert benchmark
takes (merge_bench.py, rust_deltalite_bench.py), so the harness calls them
alike, and the metrics file they write:

    PROGRAM TABLE BATCH.parquet [--keys id] [--partition-by _ph_partition_key] [--metrics FILE]

FILE receives one JSON object (upsertbench's EngineMetrics): read_bytes and
written_bytes, what the process passed through read and write system calls
during the timed operation (/proc/self/io's rchar and wchar, page-cache hits
included), and the engine's own file counts where it reports them.
"""

import argparse
import json


def parse(argv, doc, extra=None):
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("table")
    ap.add_argument("batch")
    ap.add_argument("--keys", default="id", help="primary-key columns, comma-separated")
    ap.add_argument("--partition-by", default="_ph_partition_key", help="partition columns, comma-separated")
    ap.add_argument("--metrics", metavar="FILE", help="write the operation's I/O and file counts here as JSON")
    if extra:
        extra(ap)
    args = ap.parse_args(argv)
    args.keys = [k for k in args.keys.split(",") if k]
    args.partition_by = [c for c in args.partition_by.split(",") if c]
    args.error = ap.error
    return args


def io_bytes():
    """(rchar, wchar) of /proc/self/io, every thread of the process
    included; (0, 0) where /proc does not have it."""
    try:
        with open("/proc/self/io") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        return int(fields["rchar"]), int(fields["wchar"])
    except (OSError, KeyError, ValueError):
        return 0, 0


def write_metrics(args, io_before, **counts):
    """Writes the metrics file, when asked for: the I/O since io_before
    (an io_bytes() result) and the counts that are not None."""
    if not args.metrics:
        return
    r, w = io_bytes()
    m = {"read_bytes": r - io_before[0], "written_bytes": w - io_before[1]}
    m.update({k: int(v) for k, v in counts.items() if v is not None})
    with open(args.metrics, "w") as f:
        json.dump(m, f)
