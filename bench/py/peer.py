"""Peer side of the benchmark: one operation with delta-rs (or a reference
reader) in its own process, printed as the same JSON line dlbench prints.

    peer.py open TABLE [--version N]
    peer.py scan TABLE [--engine E] [--columns a,b,c]
    peer.py noop [--engine E]
    peer.py versions

Engines for scan: deltalake (to_pyarrow_dataset, streamed batch by batch),
deltalake-table (to_pyarrow_table, materialised), pyarrow (pyarrow.dataset
over the table's files), polars (scan_parquet over the files, collected),
duckdb (read_parquet over the files, streamed as Arrow batches). The
reference readers take their file list from delta-rs outside the timing.
"""

import argparse
import json
import os
import resource
import sys
import time


def file_uris(dt):
    # deltalake renamed files() to file_uris() across releases.
    f = getattr(dt, "file_uris", None) or dt.files
    return f()


def local_paths(uris):
    return [u[len("file://"):] if u.startswith("file://") else u for u in uris]


def op_open(args, res):
    from deltalake import DeltaTable

    start = time.perf_counter()
    if args.version is not None and args.version >= 0:
        dt = DeltaTable(args.table, version=args.version)
    else:
        dt = DeltaTable(args.table)
    n = len(file_uris(dt))
    res["seconds"] = time.perf_counter() - start
    res["version"] = dt.version()
    res["files"] = n


def count_batches(batches):
    rows = 0
    for b in batches:
        rows += b.num_rows
    return rows


def op_scan(args, res):
    from deltalake import DeltaTable

    cols = args.columns.split(",") if args.columns else None
    e = args.engine
    if e in ("pyarrow", "polars", "duckdb"):
        # The file list is the log's business; only the data read is timed.
        files = local_paths(file_uris(DeltaTable(args.table)))
        res["files"] = len(files)
    start = time.perf_counter()
    if e == "deltalake":
        dt = DeltaTable(args.table)
        ds = dt.to_pyarrow_dataset()
        rows = count_batches(ds.scanner(columns=cols).to_batches())
        res["files"] = len(file_uris(dt))
    elif e == "deltalake-table":
        dt = DeltaTable(args.table)
        rows = dt.to_pyarrow_table(columns=cols).num_rows
        res["files"] = len(file_uris(dt))
    elif e == "pyarrow":
        import pyarrow.dataset as pads

        ds = pads.dataset(files, format="parquet")
        rows = count_batches(ds.scanner(columns=cols).to_batches())
    elif e == "polars":
        import polars as pl

        lf = pl.scan_parquet(files)
        if cols:
            lf = lf.select(cols)
        rows = lf.collect().height
    elif e == "duckdb":
        import duckdb

        sel = ", ".join('"%s"' % c for c in cols) if cols else "*"
        con = duckdb.connect()
        lst = ", ".join("'%s'" % f.replace("'", "''") for f in files)
        rel = con.sql("SELECT %s FROM read_parquet([%s])" % (sel, lst))
        # The streaming reader's name changed across duckdb releases.
        reader = rel.to_arrow_reader() if hasattr(rel, "to_arrow_reader") else rel.fetch_record_batch()
        rows = count_batches(reader)
    else:
        raise SystemExit("unknown engine %r" % e)
    res["seconds"] = time.perf_counter() - start
    res["rows"] = rows


def op_noop(args, res):
    # The floor: the interpreter with the engine's modules loaded.
    if args.engine.startswith("deltalake"):
        import deltalake  # noqa: F401
        import pyarrow  # noqa: F401
    elif args.engine == "pyarrow":
        import pyarrow.dataset  # noqa: F401
    elif args.engine == "polars":
        import polars  # noqa: F401
    elif args.engine == "duckdb":
        import duckdb  # noqa: F401
    res["seconds"] = 0.0


def op_versions(args, res):
    import importlib.metadata as md
    import platform

    res["versions"] = {"python": platform.python_version()}
    for name in ("deltalake", "pyarrow", "polars", "duckdb"):
        try:
            res["versions"][name] = md.version(name)
        except md.PackageNotFoundError:
            pass


def main():
    p = argparse.ArgumentParser()
    p.add_argument("op", choices=["open", "scan", "noop", "versions"])
    p.add_argument("table", nargs="?")
    p.add_argument("--version", type=int)
    p.add_argument("--columns", default="")
    p.add_argument("--engine", default="deltalake")
    args = p.parse_args()
    res = {"engine": args.engine, "op": args.op, "seconds": 0.0, "version": 0, "files": 0, "rows": 0}
    {"open": op_open, "scan": op_scan, "noop": op_noop, "versions": op_versions}[args.op](args, res)
    res["peakRssKiB"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    json.dump(res, sys.stdout)
    sys.stdout.write("\n")
    sys.stdout.flush()
    # Skip interpreter teardown: Arrow's reader threads can abort the process
    # there ("terminate called without an active exception", apache/arrow
    # issue 34314), after the work is done and measured.
    os._exit(0)


if __name__ == "__main__":
    main()
