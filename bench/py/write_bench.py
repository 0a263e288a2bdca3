"""The delta-rs side of the write benchmark: write_deltalake of an Arrow IPC
stream file into a new table, in its own process, printed as the JSON line
the Go benchmark programs print.

    write_bench.py TABLE INPUT.arrows [--partition-by c1,c2]

The input is streamed (a RecordBatchReader over the file), mode="error",
delta-rs's defaults otherwise. The timed operation opens the input and
writes the table.
"""

import argparse
import sys
import time

import bench_result


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("table")
    ap.add_argument("input")
    ap.add_argument("--partition-by", default="")
    args = ap.parse_args(argv)

    import pyarrow as pa
    from deltalake import DeltaTable, write_deltalake

    start = time.perf_counter()
    src = pa.OSFile(args.input, "rb")
    reader = pa.ipc.open_stream(src)
    part = [c for c in args.partition_by.split(",") if c] or None
    write_deltalake(args.table, reader, mode="error", partition_by=part)
    seconds = time.perf_counter() - start
    dt = DeltaTable(args.table)
    res = {
        "engine": "delta-rs",
        "op": "write",
        "seconds": seconds,
        "version": dt.version(),
    }
    bench_result.finish(res)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
