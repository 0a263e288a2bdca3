"""Upserts a Parquet batch into a Delta table with delta-rs MERGE, the way the
upsert seed's systems do it: when matched update all, when not matched insert
all, matching on the key columns. Used by the upsert parity tests and by the
benchmarks as the reference.

  merge_upsert.py TABLE BATCH.parquet --keys id[,k2...]
                  [--partition-by p1,p2] [--create] [--streamed]
                  [--partition-predicate]

--create writes the batch as a new table when TABLE is not a Delta table yet.
--partition-predicate adds the batch's distinct partition values to the merge
predicate (t.p IN (...)) so delta-rs prunes untouched partitions.
--streamed passes streamed_exec=True (delta-rs streams the source).

Prints one JSON object: {"version", "metrics" (delta-rs's), "elapsed_s",
"read_s", "merge_s", "max_rss_kb", "created"}.
"""

import argparse
import json
import os
import resource
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _ident(name):
    return '"' + name.replace('"', '""') + '"'


def _sql_literal(v):
    if v is None:
        return "NULL"
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return repr(v)
    return "'" + str(v).replace("'", "''") + "'"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("table")
    p.add_argument("batch")
    p.add_argument("--keys", required=True, type=lambda s: [c for c in s.split(",") if c])
    p.add_argument("--partition-by", type=lambda s: [c for c in s.split(",") if c], default=[])
    p.add_argument("--create", action="store_true")
    p.add_argument("--streamed", action="store_true")
    p.add_argument("--partition-predicate", action="store_true")
    args = p.parse_args(argv)

    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    from deltalake import DeltaTable, write_deltalake

    started = time.monotonic()
    batch = pq.read_table(args.batch)
    read_s = time.monotonic() - started

    t = time.monotonic()
    created = False
    if not DeltaTable.is_deltatable(args.table):
        if not args.create:
            print(f"{args.table} is not a Delta table (pass --create to make it)", file=sys.stderr)
            return 1
        write_deltalake(args.table, batch, mode="error", partition_by=args.partition_by or None)
        created = True
        metrics = {"num_target_rows_inserted": batch.num_rows}
        version = DeltaTable(args.table).version()
    else:
        dt = DeltaTable(args.table)
        keys = list(args.partition_by) + [k for k in args.keys if k not in args.partition_by]
        conds = [f"t.{_ident(k)} = s.{_ident(k)}" for k in keys]
        if args.partition_predicate:
            for col in args.partition_by:
                vals = pc.unique(batch.column(col)).to_pylist()
                conds.append(f"t.{_ident(col)} IN ({', '.join(_sql_literal(v) for v in vals)})")
        merger = dt.merge(
            batch,
            predicate=" AND ".join(conds),
            source_alias="s",
            target_alias="t",
            streamed_exec=args.streamed,
        )
        metrics = merger.when_matched_update_all().when_not_matched_insert_all().execute()
        version = dt.version()
    merge_s = time.monotonic() - t

    out = {
        "version": version,
        "created": created,
        "rows": batch.num_rows,
        "metrics": json.loads(json.dumps(metrics, default=str)),
        "read_s": round(read_s, 4),
        "merge_s": round(merge_s, 4),
        "elapsed_s": round(time.monotonic() - started, 4),
        "max_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
