"""The command line every engine's upsert program of the upsert benchmark
takes (merge_bench.py, rust_deltalite_bench.py), so the harness calls them
alike:

    PROGRAM TABLE BATCH.parquet [--keys id] [--partition-by _ph_partition_key]
"""

import argparse


def parse(argv, doc):
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("table")
    ap.add_argument("batch")
    ap.add_argument("--keys", default="id", help="primary-key columns, comma-separated")
    ap.add_argument("--partition-by", default="_ph_partition_key", help="partition columns, comma-separated")
    args = ap.parse_args(argv)
    args.keys = [k for k in args.keys.split(",") if k]
    args.partition_by = [c for c in args.partition_by.split(",") if c]
    args.error = ap.error
    return args
