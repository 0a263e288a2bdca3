"""Generates the upsert benchmark's tables and batches: wide rows shaped like
the production workload the upsert engine was built for.

    upsert_gen.py build TABLE --rows N [--partitions 2] [--payload 4500] [--file-rows 25000]
    upsert_gen.py batch OUT.parquet --rows N [--partitions 2] [--payload 4500]
                        [--updates 9000] [--inserts 1000] [--clustered TABLE] [--round R]
    upsert_gen.py below --rows N [--partitions 2] --prefix HEX

Schema: id string (UUID-shaped, random-looking: a hash of the partition and
the row number), tenant int64, counter int32 (the version that wrote the
row), created_at and updated_at timestamp(us, UTC), amount decimal(38,10),
payload string (a JSON object carrying ~PAYLOAD characters cut from a random
alphanumeric pool at a per-row offset, so that dictionary encoding cannot
shrink it), and the partition column _ph_partition_key (2026-01-01,
2026-01-02, ...).

The pool is 64 MiB by default (--pool-mib). With a 1 MiB pool every Parquet
page holds most of the pool, and a compressor whose window spans the page
(this engine's snappy encoder does, delta-rs's 64 KiB-block snappy does not)
shrinks the payload about 3x; the larger pool keeps the bytes written a
property of the engines rather than of the codec's window.

build writes every partition as appends of --file-rows rows with delta-rs
write_deltalake (one commit per append, as a table grows in production),
then prints a JSON manifest line. batch writes one Parquet file per upsert
batch: in each of the first two partitions, --updates existing keys spread
evenly over the partition (new payload, counter 2) and --inserts new keys.
With --clustered TABLE (a table build made with the same --rows,
--partitions, --payload and --pool-mib) the updated keys of each partition
are taken from one data file of TABLE instead, the partition's largest, so
an engine that prunes by statistics or probes keys rewrites that file alone;
the JSON line then also names the files, their size and rows, and the
table's file count and bytes (a rebuilt table needs a new batch).
--round R (R >= 0, below the spacing of the updated keys) shifts the updated
keys R rows on and takes the inserted keys after those of rounds 0..R-1, so
successive rounds' batches change different rows (the deletion vector
benchmark upserts ten of them). below prints, as JSON, how many keys of a
table build made with --rows and --partitions sort below PREFIX (the DELETE
of the deletion vector benchmark: WHERE id < PREFIX).
"""

import argparse
import json
import os
import shutil
import sys
import time

import numpy as np
import pyarrow as pa

PARTITION = "_ph_partition_key"
INSERT_BASE = 1 << 39  # row numbers of inserted keys, far above any table size
_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def schema():
    return pa.schema(
        [
            ("id", pa.string()),
            ("tenant", pa.int64()),
            ("counter", pa.int32()),
            ("created_at", pa.timestamp("us", tz="UTC")),
            ("updated_at", pa.timestamp("us", tz="UTC")),
            ("amount", pa.decimal128(38, 10)),
            ("payload", pa.string()),
            (PARTITION, pa.string()),
        ]
    )


def partition_value(p):
    return f"2026-01-{p + 1:02d}"


def _splitmix(x):
    with np.errstate(over="ignore"):
        x = (x + np.uint64(0x9E3779B97F4A7C15)) & _M64
        x = ((x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & _M64
        x = ((x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & _M64
        return x ^ (x >> np.uint64(31))


_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)


def keys(partition, rows):
    """UUID-shaped keys: 32 hex digits of two hashes of (partition, row)."""
    rows = np.asarray(rows, dtype=np.uint64)
    x = (np.uint64(partition) << np.uint64(40)) ^ rows
    words = [_splitmix(x), _splitmix(x ^ np.uint64(0x5851F42D4C957F2D))]
    n = len(rows)
    digits = np.empty((n, 32), dtype=np.uint8)
    for w, h in enumerate(words):
        for k in range(16):
            digits[:, w * 16 + k] = _HEX[((h >> np.uint64(60 - 4 * k)) & np.uint64(15)).astype(np.intp)]
    digits[:, 12] = ord("4")  # version nibble
    digits[:, 16] = ord("8")  # variant nibble
    out = np.empty((n, 36), dtype=np.uint8)
    out[:, 0:8] = digits[:, 0:8]
    out[:, 9:13] = digits[:, 8:12]
    out[:, 14:18] = digits[:, 12:16]
    out[:, 19:23] = digits[:, 16:20]
    out[:, 24:36] = digits[:, 20:32]
    out[:, [8, 13, 18, 23]] = ord("-")
    offsets = np.arange(n + 1, dtype=np.int32) * 36
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(out.tobytes())])


_pool = None
_pool_size = 64 << 20


def pool():
    global _pool
    if _pool is None:
        rng = np.random.default_rng(1234)
        letters = np.frombuffer(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", dtype=np.uint8)
        _pool = letters[rng.integers(0, len(letters), _pool_size)].tobytes()
    return _pool


def payloads(rows, version, size):
    p = pool()
    mult = 7919 if version == 1 else 104729
    span = len(p) - size - 1
    parts = []
    for i in rows:
        i = int(i)
        off = (i * mult) % span
        parts.append(b'{"row":%d,"v":%d,"d":"%s"}' % (i, version, p[off : off + size]))
    lens = np.fromiter((len(b) for b in parts), dtype=np.int64, count=len(parts))
    offsets = np.zeros(len(parts) + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    typ = pa.string() if offsets[-1] < (1 << 31) else pa.large_string()
    if typ == pa.string():
        offsets = offsets.astype(np.int32)
    arr = pa.Array.from_buffers(typ, len(parts), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(parts))])
    return arr.cast(pa.string()) if typ != pa.string() else arr


def make_batch(partition, rows, version, size):
    """Rows (numbers within the partition) at a version, as a record batch."""
    rows = np.asarray(rows, dtype=np.int64)
    n = len(rows)
    base = np.datetime64("2026-01-01T00:00:00", "us").astype(np.int64)
    unscaled = (rows % 1_000_000) * 10_000_000_000 + ((rows * 37) % 1_000_000_000) * 10
    dec = np.zeros((n, 2), dtype="<i8")
    dec[:, 0] = unscaled
    cols = [
        keys(partition, rows),
        pa.array(rows % 50 + 1, pa.int64()),
        pa.array(np.full(n, version, dtype=np.int32)),
        pa.array(np.full(n, base, dtype=np.int64)).cast(pa.timestamp("us", tz="UTC")),
        pa.array(np.full(n, base + version * 1_000_000, dtype=np.int64)).cast(pa.timestamp("us", tz="UTC")),
        pa.Array.from_buffers(pa.decimal128(38, 10), n, [None, pa.py_buffer(dec.tobytes())]),
        payloads(rows, version, size),
        pa.array([partition_value(partition)] * n, pa.string()),
    ]
    return pa.RecordBatch.from_arrays(cols, schema=schema())


def build(args):
    from deltalake import DeltaTable, write_deltalake

    if os.path.exists(args.table):
        shutil.rmtree(args.table)
    start = time.perf_counter()
    first = True
    for p in range(args.partitions):
        for lo in range(0, args.rows, args.file_rows):
            hi = min(lo + args.file_rows, args.rows)
            b = make_batch(p, np.arange(lo, hi), 1, args.payload)
            write_deltalake(
                args.table,
                pa.Table.from_batches([b]),
                mode="error" if first else "append",
                partition_by=[PARTITION],
            )
            first = False
        print(f"upsert_gen: partition {partition_value(p)}: {args.rows} rows ({time.perf_counter() - start:.0f}s)", file=sys.stderr)
    dt = DeltaTable(args.table)
    adds = dt.get_add_actions(flatten=True)
    sizes = adds.column("size_bytes").to_pylist()
    print(
        json.dumps(
            {
                "rows_per_partition": args.rows,
                "partitions": args.partitions,
                "payload": args.payload,
                "file_rows": args.file_rows,
                "pool_mib": args.pool_mib,
                "version": dt.version(),
                "files": len(sizes),
                "bytes": sum(sizes),
                "seconds": round(time.perf_counter() - start, 3),
            }
        )
    )


def spread(n, among, shift=0):
    """n of the sorted row numbers among, evenly spaced from the shift-th."""
    n = min(n, len(among))
    step = max(len(among) // max(n, 1), 1)
    if shift and shift >= step:
        raise SystemExit(f"upsert_gen: --round {shift} is not below the updated keys' spacing {step}")
    return among[np.arange(n, dtype=np.int64) * step + shift]


def clustered_files(table, partitions):
    """Per partition (0 .. partitions-1): the row numbers held by its largest
    data file (most rows, then most bytes, then the first path), and the
    file's description. Row numbers come from the payload's "row" field; the
    file's keys are checked against the generator's, so a table this
    generator did not make is an error rather than a batch of inserts."""
    import pyarrow.compute as pc
    import pyarrow.parquet as pq
    from urllib.parse import unquote

    from deltalake import DeltaTable

    dt = DeltaTable(table)
    adds = pa.table(dt.get_add_actions(flatten=True)).to_pylist()
    out = []
    for p in range(partitions):
        value = partition_value(p)
        files = [a for a in adds if a.get("partition." + PARTITION) == value]
        if not files:
            raise SystemExit(f"upsert_gen: {table} has no data file in partition {PARTITION}={value}")
        f = min(files, key=lambda a: (-a["num_records"], -a["size_bytes"], a["path"]))
        path = os.path.join(table, unquote(f["path"]))
        data = pq.read_table(path, columns=["id", "payload"])
        head = pc.utf8_slice_codeunits(data.column("payload"), 0, 32)
        found = pc.extract_regex(head, r'^\{"row":(?P<row>[0-9]+),')
        if found.null_count:
            raise SystemExit(f"upsert_gen: {path}: {found.null_count} payloads do not start with {{\"row\":N, (not a table this generator built)")
        rows = np.asarray(pc.struct_field(found, [0]).cast(pa.int64()).to_numpy(zero_copy_only=False))
        if not keys(p, rows).equals(data.column("id").combine_chunks()):
            raise SystemExit(f"upsert_gen: {path}: the keys are not the generator's for their row numbers (built with another --partitions?)")
        out.append((np.sort(rows), {"partition": value, "path": f["path"], "rows": len(rows), "bytes": f["size_bytes"], "files_in_partition": len(files)}))
    return out


def partition_bytes(batches):
    """The bytes of each partition's rows written as a Parquet file of its
    own, summed: what a writer that splits the batch by partition has to
    write at the least. Both partitions' rows carry the same payloads (a
    payload depends on the row number and version alone), which one file
    of the whole batch stores once, in its dictionary."""
    import io

    import pyarrow.parquet as pq

    n = 0
    for b in batches:
        buf = io.BytesIO()
        pq.write_table(pa.Table.from_batches([b]), buf)
        n += buf.tell()
    return n


def batch(args):
    import pyarrow.parquet as pq

    touched = min(args.partitions, 2)
    if args.clustered:
        chosen = clustered_files(args.clustered, touched)
    else:
        every = np.arange(args.rows, dtype=np.int64)
        chosen = [(every, None)] * touched
    batches, updates = [], 0
    for p, (among, _) in enumerate(chosen):
        upd = spread(args.updates, among, args.round)
        updates += len(upd)
        rows = np.concatenate([upd, INSERT_BASE + args.round * args.inserts + np.arange(args.inserts, dtype=np.int64)])
        batches.append(make_batch(p, rows, 2, args.payload))
    t = pa.Table.from_batches(batches)
    pq.write_table(t, args.out)
    res = {"rows": t.num_rows, "updates": updates, "inserts": args.inserts * len(batches), "bytes": os.path.getsize(args.out),
           "partition_bytes": partition_bytes(batches)}
    if args.clustered:
        from deltalake import DeltaTable

        sizes = DeltaTable(args.clustered).get_add_actions(flatten=True).column("size_bytes").to_pylist()
        res["clustered"] = [f for _, f in chosen]
        res["base_files"], res["base_bytes"] = len(sizes), sum(sizes)
    print(json.dumps(res))


def below(args):
    import pyarrow.compute as pc

    n = 0
    for p in range(args.partitions):
        for lo in range(0, args.rows, 1 << 20):
            ids = keys(p, np.arange(lo, min(lo + (1 << 20), args.rows)))
            n += int(pc.sum(pc.less(ids, args.prefix)).as_py() or 0)
    print(json.dumps({"rows": n}))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("build", "batch"):
        s = sub.add_parser(name)
        s.add_argument("table" if name == "build" else "out")
        s.add_argument("--rows", type=int, required=True, help="rows per partition")
        s.add_argument("--partitions", type=int, default=2)
        s.add_argument("--payload", type=int, default=4500)
        if name == "build":
            s.add_argument("--file-rows", type=int, default=25_000)
        else:
            s.add_argument("--updates", type=int, default=9_000, help="updated keys per touched partition")
            s.add_argument("--inserts", type=int, default=1_000, help="new keys per touched partition")
            s.add_argument("--clustered", metavar="TABLE", help="take each partition's updated keys from one data file of TABLE")
            s.add_argument("--round", type=int, default=0, help="shift the updated keys this many rows on, and the inserted keys past earlier rounds'")
        s.add_argument("--pool-mib", type=int, default=64, help="size of the random character pool payloads are cut from")
    s = sub.add_parser("below")
    s.add_argument("--rows", type=int, required=True, help="rows per partition")
    s.add_argument("--partitions", type=int, default=2)
    s.add_argument("--prefix", required=True, help="count the keys that sort below this string")
    s.add_argument("--pool-mib", type=int, default=64)
    args = ap.parse_args(argv)
    global _pool_size
    _pool_size = args.pool_mib << 20
    {"build": build, "batch": batch, "below": below}[args.cmd](args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
