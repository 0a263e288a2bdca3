"""Generates the write benchmark's input: one Arrow IPC stream file of mixed
columns, which both engines stream into a new Delta table.

    write_gen.py OUT.arrows [--gib 1.0] [--batch-rows 65536] [--partitions 100] [--seed 7]

Columns: id int64 (row number), part string (one of --partitions values
p000..., drawn at random per row, so every batch touches every partition),
k int64 (random), x float64 (random), flag bool, qty int32, ts timestamp(us,
UTC), day date32, price decimal(18,4), category string (one of 50 words),
name string (user-NNNNNNN, about a million distinct), note string (40 random
hex digits, all distinct). Rows are added until the Arrow buffers reach
--gib GiB. Prints one JSON line: rows, batches, arrow_bytes, file_bytes.
"""

import argparse
import json
import os
import sys

import numpy as np
import pyarrow as pa

WORDS = [f"category-{w}" for w in ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho "
                                     "sigma tau upsilon phi chi psi omega red orange yellow green blue indigo violet black white "
                                     "grey silver gold north south east west spring summer autumn winter sun moon star comet "
                                     "planet").split()]
_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_DIG = np.frombuffer(b"0123456789", dtype=np.uint8)


def fixed_strings(chars):
    n, w = chars.shape
    offsets = np.arange(n + 1, dtype=np.int32) * w
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(chars).tobytes())])


def digits(values, width):
    out = np.empty((len(values), width), dtype=np.uint8)
    v = values.copy()
    for k in range(width - 1, -1, -1):
        out[:, k] = _DIG[v % 10]
        v //= 10
    return out


def schema():
    return pa.schema(
        [
            ("id", pa.int64()),
            ("part", pa.string()),
            ("k", pa.int64()),
            ("x", pa.float64()),
            ("flag", pa.bool_()),
            ("qty", pa.int32()),
            ("ts", pa.timestamp("us", tz="UTC")),
            ("day", pa.date32()),
            ("price", pa.decimal128(18, 4)),
            ("category", pa.string()),
            ("name", pa.string()),
            ("note", pa.string()),
        ]
    )


def make_batch(rng, start, n, partitions):
    ids = np.arange(start, start + n, dtype=np.int64)
    part = rng.integers(0, partitions, n)
    pchars = np.empty((n, 4), dtype=np.uint8)
    pchars[:, 0] = ord("p")
    pchars[:, 1:] = digits(part, 3)
    base_ts = np.datetime64("2026-01-01T00:00:00", "us").astype(np.int64)
    ts = base_ts + rng.integers(0, 365 * 86400 * 1_000_000, n)
    price = np.zeros((n, 2), dtype="<i8")
    price[:, 0] = rng.integers(0, 10_000_000_000, n)
    name = np.empty((n, 12), dtype=np.uint8)
    name[:, :5] = np.frombuffer(b"user-", dtype=np.uint8)
    name[:, 5:] = digits(rng.integers(0, 1_000_000, n), 7)
    note = _HEX[rng.integers(0, 16, (n, 40))]
    cols = [
        pa.array(ids),
        fixed_strings(pchars),
        pa.array(rng.integers(-(1 << 62), 1 << 62, n)),
        pa.array(rng.standard_normal(n) * 1000),
        pa.array(rng.random(n) < 0.5),
        pa.array(rng.integers(0, 1000, n).astype(np.int32)),
        pa.array(ts).cast(pa.timestamp("us", tz="UTC")),
        pa.array((ts // 86_400_000_000).astype(np.int32)).cast(pa.date32()),
        pa.Array.from_buffers(pa.decimal128(18, 4), n, [None, pa.py_buffer(price.tobytes())]),
        pa.array(WORDS).take(pa.array(rng.integers(0, len(WORDS), n))),
        fixed_strings(name),
        fixed_strings(note),
    ]
    return pa.RecordBatch.from_arrays(cols, schema=schema())


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--gib", type=float, default=1.0)
    ap.add_argument("--batch-rows", type=int, default=65536)
    ap.add_argument("--partitions", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    target = int(args.gib * (1 << 30))
    rows = batches = size = 0
    tmp = args.out + ".tmp"
    with pa.OSFile(tmp, "wb") as f, pa.ipc.new_stream(f, schema()) as w:
        while size < target:
            b = make_batch(rng, rows, args.batch_rows, args.partitions)
            w.write_batch(b)
            rows += b.num_rows
            batches += 1
            size += b.nbytes
    os.replace(tmp, args.out)
    print(json.dumps({"rows": rows, "batches": batches, "batch_rows": args.batch_rows, "partitions": args.partitions,
                      "arrow_bytes": size, "file_bytes": os.path.getsize(args.out), "seed": args.seed}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
