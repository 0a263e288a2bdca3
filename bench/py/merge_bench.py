"""The delta-rs side of the upsert benchmark: one MERGE of a Parquet batch
into a table, in its own process, printed as the JSON line the Go benchmark
programs print.

    merge_bench.py TABLE BATCH.parquet [--keys id] [--partition-by _ph_partition_key]

The MERGE is the one the upsert replaces:
    dt.merge(batch, predicate="t.<part> = s.<part> AND t.<key> = s.<key>",
             source_alias="s", target_alias="t")
      .when_matched_update_all().when_not_matched_insert_all().execute()
with delta-rs's defaults otherwise (streamed_exec=True in deltalake 1.x).
The timed operation reads the batch, opens the table and merges.
"""

import json
import os
import resource
import sys
import time

import upsert_args


def _ident(name):
    return '"' + name.replace('"', '""') + '"'


def main(argv):
    args = upsert_args.parse(argv, __doc__)

    import pyarrow.parquet as pq
    from deltalake import DeltaTable

    start = time.perf_counter()
    src = pq.read_table(args.batch)
    dt = DeltaTable(args.table)
    cols = args.partition_by + args.keys
    predicate = " AND ".join(f"t.{_ident(c)} = s.{_ident(c)}" for c in cols)
    metrics = (
        dt.merge(src, predicate=predicate, source_alias="s", target_alias="t")
        .when_matched_update_all()
        .when_not_matched_insert_all()
        .execute()
    )
    seconds = time.perf_counter() - start
    res = {
        "engine": "delta-rs",
        "op": "merge",
        "seconds": seconds,
        "version": dt.version(),
        "rows": src.num_rows,
        "peakRssKiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "rowsUpdated": metrics.get("num_target_rows_updated"),
        "rowsInserted": metrics.get("num_target_rows_inserted"),
        "rowsCopied": metrics.get("num_target_rows_copied"),
        "filesAdded": metrics.get("num_target_files_added"),
        "filesRemoved": metrics.get("num_target_files_removed"),
    }
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()
    # Skip interpreter teardown: freeing the heap is not part of the merge.
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
