"""Drives a Delta table on an object store with delta-rs (the deltalake
package), for Go tests that alternate and race deltalite and delta-rs on the
same table.

  cloud_peer.py          reads requests from stdin, one JSON object a line,
                         and answers each with one JSON line on stdout

Credentials travel in the requests, never on the command line, so that they
do not show in the process list.

Request: {"op": ..., "uri": "s3://bucket/table", "storage_options": {...}, ...}
  write     mode (append|overwrite), schema, rows (canonical form, see
            peerlib/data.py), [partition_by] [predicate (replace where)]
            -> {"version": N}
  appends   schema, batches (a list of row lists): one append per batch, a
            lost commit race retried up to 20 times
            -> {"versions": [...], "conflicts": N}
  read      [version] -> the canonical document of peerlib/canon.py, with
            "version"
  history   -> {"commits": [{"version", "operation", "timestamp"}, ...]},
            newest first
Answer: {"ok": true, ...} or {"ok": false, "error": "...", "kind": "..."}.
"""

import json
import os
import sys
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import pyarrow as pa  # noqa: E402

from peerlib import canon, data  # noqa: E402


def _table(req, version=None):
    from deltalake import DeltaTable

    return DeltaTable(req["uri"], version=version, storage_options=req.get("storage_options") or None)


def op_write(req):
    from deltalake import write_deltalake

    kwargs = {}
    if req.get("partition_by"):
        kwargs["partition_by"] = req["partition_by"]
    if req.get("predicate"):
        kwargs["predicate"] = req["predicate"]
    write_deltalake(
        req["uri"],
        data.table_from_rows(req["schema"], req.get("rows", [])),
        mode=req.get("mode", "append"),
        storage_options=req.get("storage_options") or None,
        **kwargs,
    )
    return {"version": _table(req).version()}


def _is_conflict(e):
    from deltalake.exceptions import CommitFailedError

    return isinstance(e, CommitFailedError) or "conflict" in str(e).lower() or "already exists" in str(e).lower()


def op_appends(req):
    from deltalake import write_deltalake

    versions, conflicts = [], 0
    for rows in req["batches"]:
        for attempt in range(21):
            try:
                write_deltalake(
                    req["uri"],
                    data.table_from_rows(req["schema"], rows),
                    mode="append",
                    storage_options=req.get("storage_options") or None,
                )
                break
            except Exception as e:  # noqa: BLE001
                if attempt == 20 or not _is_conflict(e):
                    raise
                conflicts += 1
        versions.append(_table(req).version())
    return {"versions": versions, "conflicts": conflicts}


def op_read(req):
    from deltalake import QueryBuilder

    dt = _table(req, req.get("version"))
    reader = QueryBuilder().register("t", dt).execute("SELECT * FROM t")
    table = pa.table(reader.read_all())
    return canon.document(table, engine="deltalake", version=dt.version())


def op_history(req):
    commits = []
    for c in _table(req).history():
        commits.append({"version": c.get("version"), "operation": c.get("operation"), "timestamp": c.get("timestamp")})
    return {"commits": commits}


OPS = {"write": op_write, "appends": op_appends, "read": op_read, "history": op_history}


def handle(line):
    try:
        req = json.loads(line)
        fn = OPS.get(req.get("op"))
        if fn is None:
            return {"ok": False, "error": f"unknown op {req.get('op')!r}", "kind": "usage"}
        out = fn(req)
        out["ok"] = True
        return out
    except Exception as e:  # noqa: BLE001
        traceback.print_exc(file=sys.stderr)
        return {"ok": False, "error": f"{type(e).__name__}: {e}", "kind": type(e).__name__}


def main():
    for line in sys.stdin:
        if not line.strip():
            continue
        sys.stdout.write(json.dumps(handle(line), ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
