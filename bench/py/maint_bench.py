"""The delta-rs side of the maintenance benchmark: one OPTIMIZE (compaction
or z-order) or VACUUM of a table, in its own process, printed as the JSON
line the Go benchmark programs print.

    maint_bench.py compact TABLE [--target-size BYTES]
    maint_bench.py zorder TABLE --columns x,y [--target-size BYTES] [--max-spill-size BYTES]
    maint_bench.py vacuum TABLE
    maint_bench.py probe TABLE
    ... [--as-limit BYTES]

compact is DeltaTable.optimize.compact(), zorder optimize.z_order(columns),
both with delta-rs's defaults unless a flag says otherwise; vacuum is
vacuum(retention_hours=0, enforce_retention_duration=False, dry_run=False).
The timed operation opens the table and runs the operation.

--as-limit caps the process's address space before deltalake is imported,
as `prlimit --as=BYTES` would: the benchmark's memory-capped z-order run. A
failure there (MemoryError, or the Rust allocator aborting the process) is
the result the harness records. probe opens the table and reports the
process's peak address space (VmPeak), the least such a cap must leave;
every result carries vmPeakKiB, from which the harness sets the cap.
"""

import argparse
import json
import resource
import sys
import time

import bench_result


def vm_peak_kib():
    """VmPeak of /proc/self/status in KiB; 0 where /proc does not have it."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmPeak:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("op", choices=["compact", "zorder", "vacuum", "probe"])
    ap.add_argument("table")
    ap.add_argument("--columns", default="", help="zorder: columns, comma-separated")
    ap.add_argument("--target-size", type=int, help="target file size in bytes (default: delta-rs's)")
    ap.add_argument("--max-spill-size", type=int, help="zorder: delta-rs's max_spill_size (its memory pool) in bytes")
    ap.add_argument("--as-limit", type=int, help="cap the address space at BYTES (RLIMIT_AS) before importing deltalake")
    args = ap.parse_args(argv)
    columns = [c for c in args.columns.split(",") if c]
    if args.op == "zorder" and not columns:
        ap.error("zorder needs --columns")
    if args.as_limit:
        resource.setrlimit(resource.RLIMIT_AS, (args.as_limit, args.as_limit))

    from deltalake import DeltaTable

    start = time.perf_counter()
    dt = DeltaTable(args.table)
    res = {"engine": "delta-rs", "op": args.op}
    if args.op == "probe":
        res["detail"] = json.dumps({"vmPeakKiB": vm_peak_kib()})
    elif args.op == "vacuum":
        deleted = dt.vacuum(retention_hours=0, enforce_retention_duration=False, dry_run=False)
        res["filesRemoved"] = len(deleted)
        res["detail"] = json.dumps({"numDeletedFiles": len(deleted)})
    else:
        opts = {}
        if args.target_size:
            opts["target_size"] = args.target_size
        if args.op == "compact":
            metrics = dt.optimize.compact(**opts)
        else:
            if args.max_spill_size:
                opts["max_spill_size"] = args.max_spill_size
            metrics = dt.optimize.z_order(columns, **opts)
        res["filesAdded"] = metrics.get("numFilesAdded")
        res["filesRemoved"] = metrics.get("numFilesRemoved")
        res["detail"] = json.dumps(metrics, sort_keys=True, default=str)
    res["seconds"] = time.perf_counter() - start
    dt = DeltaTable(args.table)
    res["version"] = dt.version()
    res["vmPeakKiB"] = vm_peak_kib()
    bench_result.finish(res)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
