"""Reference side of the MERGE / DELETE / UPDATE parity suite
(testkit/mergetest): builds a Delta table with delta-rs, copies it for
the engine under test, then applies a sequence of operations with delta-rs and
records the table's content after every one as a canonical document
(python/peerlib/canon.py). One process runs a whole scenario.

  deltars_ops.py SPEC.json

Spec:
  {"table": "/tmp/r",                 the table delta-rs works on
   "copy_to": "/tmp/o",               a copy of the freshly built table (optional)
   "partition_by": ["grp"],           partition columns ([] or absent: none)
   "create": {"files": ["init0.parquet", ...], "max_row_group_size": 16},
   "steps": [
     {"op": "merge", "source": "s0.parquet", "predicate": "t.id = s.id",
      "source_alias": "s", "target_alias": "t", "schema_mode": "merge"?,
      "clauses": [{"when": "matched|not_matched|not_matched_by_source",
                   "action": "update|update_all|delete|insert|insert_all",
                   "predicate": "..."?, "updates": {"col": "expr"}?, "except_cols": [...]?}],
      "out": "step0.json"},
     {"op": "delete", "predicate": "..."?, "out": ...},
     {"op": "update", "updates": {"col": "expr"}, "predicate": "..."?, "out": ...},
     {"op": "skip", "out": ...}]}     nothing applied (a step only the engine runs)

Clauses are added in their order, which within a kind is the order delta-rs
tries them. Prints {"created_version", "steps": [{"ok", "error"?, "metrics",
"version", "seconds"}]}; a failing step does not stop the sequence.
"""

import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.join(os.environ.get("DELTALITE_ROOT", "."), "python"))

from peerlib import canon  # noqa: E402


def _read(path):
    import pyarrow as pa
    from deltalake import DeltaTable, QueryBuilder

    dt = DeltaTable(path)
    reader = QueryBuilder().register("t", dt).execute("SELECT * FROM t")
    return pa.table(reader.read_all()), dt.version()


def _merge(path, step, wp):
    import pyarrow.parquet as pq
    from deltalake import DeltaTable

    m = DeltaTable(path).merge(
        pq.read_table(step["source"]),
        predicate=step["predicate"],
        source_alias=step.get("source_alias", "s"),
        target_alias=step.get("target_alias", "t"),
        merge_schema=step.get("schema_mode") == "merge",
        writer_properties=wp,
    )
    for c in step["clauses"]:
        kind, action, pred = c["when"], c["action"], c.get("predicate") or None
        if kind == "matched" and action == "update":
            m = m.when_matched_update(c["updates"], predicate=pred)
        elif kind == "matched" and action == "update_all":
            m = m.when_matched_update_all(predicate=pred, except_cols=c.get("except_cols") or None)
        elif kind == "matched" and action == "delete":
            m = m.when_matched_delete(predicate=pred)
        elif kind == "not_matched" and action == "insert":
            m = m.when_not_matched_insert(c["updates"], predicate=pred)
        elif kind == "not_matched" and action == "insert_all":
            m = m.when_not_matched_insert_all(predicate=pred, except_cols=c.get("except_cols") or None)
        elif kind == "not_matched_by_source" and action == "update":
            m = m.when_not_matched_by_source_update(c["updates"], predicate=pred)
        elif kind == "not_matched_by_source" and action == "delete":
            m = m.when_not_matched_by_source_delete(predicate=pred)
        else:
            raise ValueError(f"unknown clause {kind} {action}")
    return m.execute()


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[0]) as f:
        spec = json.load(f)

    import pyarrow.parquet as pq
    from deltalake import DeltaTable, WriterProperties, write_deltalake

    path = spec["table"]
    parts = spec.get("partition_by") or None
    create = spec.get("create") or {}
    wp = None
    if create.get("max_row_group_size"):
        wp = WriterProperties(max_row_group_size=int(create["max_row_group_size"]))
    for file in create.get("files") or []:
        write_deltalake(path, pq.read_table(file), mode="append", partition_by=parts, writer_properties=wp)
    created = DeltaTable(path).version()
    if spec.get("copy_to"):
        shutil.copytree(path, spec["copy_to"])

    results = []
    for step in spec.get("steps") or []:
        started = time.monotonic()
        r = {"ok": True}
        try:
            op = step["op"]
            if op == "merge":
                r["metrics"] = _merge(path, step, wp)
            elif op == "delete":
                r["metrics"] = DeltaTable(path).delete(predicate=step.get("predicate") or None, writer_properties=wp)
            elif op == "update":
                r["metrics"] = DeltaTable(path).update(
                    updates=step["updates"], predicate=step.get("predicate") or None, writer_properties=wp
                )
            elif op != "skip":
                raise ValueError(f"unknown op {op!r}")
        except Exception as e:  # noqa: BLE001 - reported to the Go side
            r = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        table, version = _read(path)
        r["version"] = version
        if step.get("out"):
            with open(step["out"], "w") as f:
                f.write(json.dumps(canon.document(table, engine="deltalake", version=version), ensure_ascii=False))
        r["seconds"] = round(time.monotonic() - started, 3)
        results.append(r)
    print(json.dumps({"created_version": created, "steps": results}, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
