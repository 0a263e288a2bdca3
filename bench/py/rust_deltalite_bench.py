"""The Rust deltalite side of the upsert benchmark: one upsert of a Parquet
batch into a table with the `deltalite` package from PyPI (a Rust engine
behind a Python binding), in its own process, printed as the JSON line the
Go benchmark programs print.

    rust_deltalite_bench.py TABLE BATCH.parquet [--keys id] [--partition-by _ph_partition_key] [--metrics FILE]

It runs in its own virtual environment (CPython >= 3.12, pinned in
bench/py/requirements-deltalite.txt; bench/upsert.sh makes it), so it needs
nothing but pyarrow and deltalite. The call is the package's documented one,
with its defaults otherwise:
    DeltaLiteTable.open(TABLE).upsert(batch, primary_keys=[...], partition_key=...)
The timed operation reads the batch, opens the table and upserts, as for the
other engines.
"""

import json
import os
import resource
import sys
import time

import upsert_args


def main(argv):
    args = upsert_args.parse(argv, __doc__)
    parts = args.partition_by
    if len(parts) > 1:
        # The package upserts by at most one partition column.
        args.error(f"--partition-by {','.join(parts)!r}: the Rust deltalite takes at most one partition column")

    import deltalite
    import pyarrow.parquet as pq

    io_before = upsert_args.io_bytes()
    start = time.perf_counter()
    src = pq.read_table(args.batch)
    table = deltalite.DeltaLiteTable.open(args.table)
    stats = table.upsert(
        src,
        primary_keys=args.keys,
        partition_key=parts[0] if parts else None,
    )
    seconds = time.perf_counter() - start
    upsert_args.write_metrics(
        args,
        io_before,
        files_probed=stats.files_probed,
        files_carried_over=stats.files_carried_over,
        files_removed=stats.files_removed,
    )
    res = {
        "engine": "deltalite-rs",
        "op": "upsert",
        "seconds": seconds,
        "version": stats.version,
        "rows": src.num_rows,
        "peakRssKiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "rowsUpdated": stats.rows_updated,
        "rowsInserted": stats.rows_inserted,
        "rowsCopied": stats.rows_copied,
        "filesAdded": stats.files_added,
        "filesRemoved": stats.files_removed,
        "detail": f"{stats!r} plan_ms={stats.plan_ms} probe_ms={stats.probe_ms} rewrite_ms={stats.rewrite_ms} "
        f"commit_ms={stats.commit_ms} open_ms={stats.open_ms}",
    }
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
    # Skip interpreter teardown: freeing the heap is not part of the upsert.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
