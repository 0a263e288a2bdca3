"""Makes a Delta table with a peer engine from a JSON spec, for tests of the
form "deltalite reads what delta-rs / Spark write".

  write_table.py SPEC.json      (or "-" for stdin)

Spec:
  {"engine": "deltalake" | "spark", "path": "/tmp/t", "steps": [STEP, ...]}
Each step is an operation on the table at "path" (a step may name its own
"path"). Data comes as {"schema": [...], "rows": [...]} in canonical form (see
peerlib/data.py and peerlib/canon.py) or {"input": "file.parquet"}.

deltalake steps:
  write      mode (append|overwrite|error|ignore), [partition_by] [schema_mode]
             [configuration {k: v}] [predicate (replace where)] [target_file_size]
             [name] [description]
  create     schema, [partition_by] [configuration]
  delete     [predicate]
  update     set {col: sql expr}, [predicate]
  merge      data, on [keys] or condition (aliases t and s), [matched:
             update_all|delete|none] [not_matched: insert_all|none]
             [not_matched_by_source: delete]
  checkpoint, optimize [zorder] [target_size], vacuum [retention_hours],
  set_properties {k: v}, cleanup_metadata, restore version | timestamp (RFC 3339)
spark steps: the operations of spark_ops.py (write with "properties" for table
properties such as delta.enableDeletionVectors, delta.columnMapping.mode,
delta.checkpointPolicy=v2).

Prints {"engine", "path", "version", "steps": [{"op", "ok", ...}]}; exits 1 if
a step failed (its error is in the output and on stderr).
"""

import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peerlib import data  # noqa: E402


def _dt(path):
    from deltalake import DeltaTable

    return DeltaTable(path)


def _metrics(m):
    if m is None:
        return None
    if isinstance(m, dict):
        return m
    return json.loads(json.dumps(m, default=str))


def dl_write(step):
    from deltalake import write_deltalake

    kwargs = {}
    for key in ("partition_by", "schema_mode", "configuration", "predicate", "target_file_size", "name", "description"):
        if step.get(key) is not None:
            kwargs[key] = step[key]
    write_deltalake(step["path"], data.load(step), mode=step.get("mode", "append"), **kwargs)
    return {}


def dl_create(step):
    from deltalake import DeltaTable

    schema = data.arrow_schema(step["schema"])
    DeltaTable.create(
        step["path"],
        schema,
        partition_by=step.get("partition_by"),
        configuration=step.get("configuration"),
        mode=step.get("mode", "error"),
    )
    return {}


def dl_delete(step):
    return {"metrics": _metrics(_dt(step["path"]).delete(step.get("predicate")))}


def dl_update(step):
    return {"metrics": _metrics(_dt(step["path"]).update(updates=step["set"], predicate=step.get("predicate")))}


def dl_merge(step):
    cond = step.get("condition") or " AND ".join(f't."{k}" = s."{k}"' for k in step["on"])
    m = _dt(step["path"]).merge(data.load(step), predicate=cond, source_alias="s", target_alias="t")
    matched = step.get("matched", "update_all")
    if matched == "update_all":
        m = m.when_matched_update_all()
    elif matched == "delete":
        m = m.when_matched_delete()
    if step.get("not_matched", "insert_all") == "insert_all":
        m = m.when_not_matched_insert_all()
    if step.get("not_matched_by_source") == "delete":
        m = m.when_not_matched_by_source_delete()
    return {"metrics": _metrics(m.execute())}


def dl_checkpoint(step):
    _dt(step["path"]).create_checkpoint()
    return {}


def dl_optimize(step):
    dt = _dt(step["path"])
    if step.get("zorder"):
        m = dt.optimize.z_order(step["zorder"], target_size=step.get("target_size"))
    else:
        m = dt.optimize.compact(target_size=step.get("target_size"))
    return {"metrics": _metrics(m)}


def dl_vacuum(step):
    removed = _dt(step["path"]).vacuum(
        retention_hours=int(step.get("retention_hours", 168)),
        enforce_retention_duration=False,
        dry_run=False,
    )
    return {"removed": list(removed)}


def dl_set_properties(step):
    _dt(step["path"]).alter.set_table_properties(step["properties"])
    return {}


def dl_cleanup_metadata(step):
    _dt(step["path"]).cleanup_metadata()
    return {}


def dl_restore(step):
    target = step["version"] if "version" in step else step["timestamp"]
    return {"metrics": _metrics(_dt(step["path"]).restore(target))}


DELTALAKE_OPS = {
    "write": dl_write,
    "create": dl_create,
    "delete": dl_delete,
    "update": dl_update,
    "merge": dl_merge,
    "checkpoint": dl_checkpoint,
    "optimize": dl_optimize,
    "vacuum": dl_vacuum,
    "set_properties": dl_set_properties,
    "cleanup_metadata": dl_cleanup_metadata,
    "restore": dl_restore,
}


def run_deltalake(steps):
    results = []
    for step in steps:
        started = time.monotonic()
        name = step.get("op", "write")
        try:
            fn = DELTALAKE_OPS.get(name)
            if fn is None:
                raise ValueError(f"unknown op {name!r}; known: {sorted(DELTALAKE_OPS)}")
            r = fn(step)
            r["ok"] = True
        except Exception as e:  # noqa: BLE001 - reported to the caller
            r = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        r["op"] = name
        r["seconds"] = round(time.monotonic() - started, 3)
        results.append(r)
        if not r["ok"]:
            break
    return results


def run_spark(steps):
    from peerlib import spark as peer_spark

    session = peer_spark.session()
    results = []
    for step in steps:
        r = peer_spark.run_op(session, step)
        results.append(r)
        if not r.get("ok"):
            break
    session.stop()
    peer_spark.cleanup()
    return results


def main(argv):
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    spec = json.load(sys.stdin if argv[0] == "-" else open(argv[0]))
    engine = spec.get("engine", "deltalake")
    steps = []
    for step in spec.get("steps", []):
        step = dict(step)
        step.setdefault("path", spec.get("path"))
        step.setdefault("op", "write")
        steps.append(step)
    if engine == "deltalake":
        results = run_deltalake(steps)
    elif engine == "spark":
        results = run_spark(steps)
    else:
        print(f"unknown engine {engine!r}: deltalake or spark", file=sys.stderr)
        return 2
    version = None
    if spec.get("path") and all(r.get("ok") for r in results):
        try:
            version = _dt(spec["path"]).version()
        except Exception:  # noqa: BLE001 - a spec may leave no table behind
            version = None
    print(json.dumps({"engine": engine, "path": spec.get("path"), "version": version, "steps": results}))
    failed = [r for r in results if not r.get("ok")]
    for r in failed:
        print(f"{r['op']}: {r['error']}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
