"""Reference side of the upsert parity suite (testkit/upserttest): builds a
Delta table with delta-rs, copies it for the engine under test, then applies
a sequence of batches with delta-rs MERGE and records the table's content
after every batch as a canonical document (peerlib/canon.py).

  parity_merge.py SPEC.json

Spec:
  {"table": "/tmp/m",            the table MERGE applies the batches to
   "copy_to": "/tmp/u",          a copy of the freshly built table (optional)
   "keys": ["id"],               primary-key columns
   "partition_by": ["day"],      partition columns ([] or absent: none)
   "create": {"files": ["init0.parquet", ...],   one append per file
              "max_row_group_size": 64,          optional writer properties
              "target_file_size": 8192,
              "configuration": {"k": "v"}},
   "steps": [{"upsert": "b0.parquet",   MERGE when matched update all, when
                                        not matched insert all (optional)
              "delete": "d0.parquet",   MERGE when matched delete (optional),
                                        applied before the upsert
              "out": "s0.json"}]}       the content after the step

Both MERGEs match on every key column and every partition column
(t.c = s.c), so a key is an identity within its partition, and a NULL key
never matches. The created table and each MERGE use the same writer
properties, so that MERGE's files also hold many row groups.

Prints {"created_version", "create_seconds", "steps": [{"ok", "version", "error"?, "seconds"}]};
a failing MERGE does not stop the sequence (the next steps still run and the
failure is reported), so the Go side decides what a failure means.
"""

import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peerlib import canon  # noqa: E402


def _ident(name):
    return '"' + name.replace('"', '""') + '"'


def _predicate(keys, partition_by):
    cols = list(partition_by) + [k for k in keys if k not in partition_by]
    return " AND ".join(f"t.{_ident(c)} = s.{_ident(c)}" for c in cols)


def _read(path):
    import pyarrow as pa
    from deltalake import DeltaTable, QueryBuilder

    dt = DeltaTable(path)
    reader = QueryBuilder().register("t", dt).execute("SELECT * FROM t")
    return pa.table(reader.read_all()), dt.version()


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        spec = json.load(f)

    import pyarrow.parquet as pq
    from deltalake import DeltaTable, WriterProperties, write_deltalake

    t0 = time.monotonic()
    path = spec["table"]
    keys = spec["keys"]
    parts = spec.get("partition_by") or []
    create = spec.get("create") or {}
    wp = None
    if create.get("max_row_group_size"):
        wp = WriterProperties(max_row_group_size=int(create["max_row_group_size"]))
    for i, file in enumerate(create.get("files") or []):
        kwargs = {}
        if wp is not None:
            kwargs["writer_properties"] = wp
        if create.get("target_file_size"):
            kwargs["target_file_size"] = int(create["target_file_size"])
        if i == 0 and create.get("configuration"):
            kwargs["configuration"] = create["configuration"]
        write_deltalake(path, pq.read_table(file), mode="append", partition_by=parts or None, **kwargs)
    created = DeltaTable(path).version()
    create_s = round(time.monotonic() - t0, 3)
    if spec.get("copy_to"):
        shutil.copytree(path, spec["copy_to"])

    pred = _predicate(keys, parts)
    results = []
    for step in spec.get("steps") or []:
        started = time.monotonic()
        r = {"ok": True}
        try:
            if step.get("delete"):
                m = DeltaTable(path).merge(
                    pq.read_table(step["delete"]), predicate=pred, source_alias="s", target_alias="t",
                    writer_properties=wp,
                )
                m.when_matched_delete().execute()
            if step.get("upsert"):
                m = DeltaTable(path).merge(
                    pq.read_table(step["upsert"]), predicate=pred, source_alias="s", target_alias="t",
                    writer_properties=wp,
                )
                m.when_matched_update_all().when_not_matched_insert_all().execute()
        except Exception as e:  # noqa: BLE001 - reported to the Go side
            r = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        table, version = _read(path)
        r["version"] = version
        if step.get("out"):
            with open(step["out"], "w") as f:
                f.write(json.dumps(canon.document(table, engine="deltalake", version=version), ensure_ascii=False))
        r["seconds"] = round(time.monotonic() - started, 3)
        results.append(r)
    print(json.dumps({"created_version": created, "create_seconds": create_s, "steps": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
