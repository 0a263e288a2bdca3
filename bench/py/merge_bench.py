"""The delta-rs side of the upsert benchmark: one MERGE of a Parquet batch
into a table, in its own process, printed as the JSON line the Go benchmark
programs print.

    merge_bench.py TABLE BATCH.parquet [--keys id] [--partition-by _ph_partition_key]
                   [--partition-literal] [--matched-condition EXPR] [--metrics FILE]
    merge_bench.py TABLE - --delete PREDICATE [--metrics FILE]

The MERGE is the one the upsert replaces:
    dt.merge(batch, predicate="t.<part> = s.<part> AND t.<key> = s.<key>",
             source_alias="s", target_alias="t")
      .when_matched_update_all().when_not_matched_insert_all().execute()
with delta-rs's defaults otherwise (streamed_exec=True in deltalake 1.x).
--partition-literal adds "AND t.<part> IN ('v1', 'v2', ...)" listing the
batch's partition values, the term that lets delta-rs skip the files of
other partitions before it scans. The timed operation reads the batch,
opens the table and merges. The metrics file (see upsert_args) carries
MERGE's num_target_files_scanned and num_target_files_skipped_during_scan.

--matched-condition makes the update conditional (the MERGE benchmark's
WHEN MATCHED AND s.updated_at > t.updated_at). --delete runs
dt.delete(PREDICATE) instead of a MERGE (no batch: pass -); its metrics file
carries DELETE's num_removed_files as files_removed (delta-rs reports no
count of the files it read).
"""

import json
import sys
import time

import bench_result
import upsert_args


def _ident(name):
    return '"' + name.replace('"', '""') + '"'


def _literal(v):
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    return str(v)


def partition_terms(src, columns):
    """t.<part> IN (...) per partition column, listing the values src holds."""
    import pyarrow.compute as pc

    terms = []
    for c in columns:
        values = pc.unique(src.column(c)).to_pylist()
        lits = sorted(_literal(v) for v in values if v is not None)
        term = f"t.{_ident(c)} IN ({', '.join(lits)})" if lits else "FALSE"
        if None in values:
            term = f"({term} OR t.{_ident(c)} IS NULL)"
        terms.append(term)
    return terms


def main(argv):
    def extra(ap):
        ap.add_argument("--partition-literal", action="store_true", help="add a literal term listing the batch's partitions")
        ap.add_argument("--matched-condition", metavar="EXPR", help="update a matched row only where EXPR holds")
        ap.add_argument("--delete", metavar="PREDICATE", help="run DELETE WHERE PREDICATE instead of a MERGE")

    args = upsert_args.parse(argv, __doc__, extra)

    import pyarrow.parquet as pq
    from deltalake import DeltaTable

    if args.delete is not None:
        return delete(args)
    io_before = upsert_args.io_bytes()
    start = time.perf_counter()
    src = pq.read_table(args.batch)
    dt = DeltaTable(args.table)
    cols = args.partition_by + args.keys
    terms = [f"t.{_ident(c)} = s.{_ident(c)}" for c in cols]
    if args.partition_literal:
        terms += partition_terms(src, args.partition_by)
    predicate = " AND ".join(terms)
    metrics = (
        dt.merge(src, predicate=predicate, source_alias="s", target_alias="t")
        .when_matched_update_all(predicate=args.matched_condition)
        .when_not_matched_insert_all()
        .execute()
    )
    seconds = time.perf_counter() - start
    upsert_args.write_metrics(
        args,
        io_before,
        files_scanned=metrics.get("num_target_files_scanned"),
        files_skipped=metrics.get("num_target_files_skipped_during_scan"),
    )
    bench_result.finish(
        {
            "engine": "delta-rs",
            "op": "merge",
            "seconds": seconds,
            "version": dt.version(),
            "rows": src.num_rows,
            "rowsUpdated": metrics.get("num_target_rows_updated"),
            "rowsInserted": metrics.get("num_target_rows_inserted"),
            "rowsCopied": metrics.get("num_target_rows_copied"),
            "filesAdded": metrics.get("num_target_files_added"),
            "filesRemoved": metrics.get("num_target_files_removed"),
            "detail": predicate if args.partition_literal else "",
        }
    )


def delete(args):
    from deltalake import DeltaTable

    io_before = upsert_args.io_bytes()
    start = time.perf_counter()
    dt = DeltaTable(args.table)
    metrics = dt.delete(args.delete)
    seconds = time.perf_counter() - start
    upsert_args.write_metrics(args, io_before, files_removed=metrics.get("num_removed_files"))
    bench_result.finish(
        {
            "engine": "delta-rs",
            "op": "delete",
            "seconds": seconds,
            "version": dt.version(),
            "rows": metrics.get("num_deleted_rows"),
            "rowsCopied": metrics.get("num_copied_rows"),
            "filesAdded": metrics.get("num_added_files"),
            "filesRemoved": metrics.get("num_removed_files"),
            "detail": json.dumps(metrics, sort_keys=True, default=str),
        }
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
