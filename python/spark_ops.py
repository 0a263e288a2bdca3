"""Runs Delta operations in one local Spark session, so that the JVM start-up
is paid once for many operations.

  spark_ops.py OPS.json [--out RESULTS.json]
      OPS.json holds a JSON list of operations; prints {"results": [...]}.
  spark_ops.py --serve
      Reads one request per line on stdin, {"id": N, "ops": [...]}, and answers
      each with one line {"id": N, "results": [...]}; exits at end of input.
      Everything else the process prints goes to stderr.
  spark_ops.py --connect-server PORT
      Becomes a Spark Connect server with Delta on 127.0.0.1:PORT, from the
      pinned pyspark and the cached Delta jars (scripts/spark-connect-server.sh).
  spark_ops.py --resolve
      Resolves the Delta jars from Maven Central into .cache, runs a small
      Delta workload and records the classes it loads into a JVM class-data
      sharing archive in .cache, which halves later start-ups
      (used by scripts/setup-test-env.sh).
  spark_ops.py --archive
      The same without resolving: remakes the archive from the cached jars.

Operations (each takes "path", the table location):
  read      [version] [timestamp] [columns] [where] -> canonical rows (see peerlib/canon.py)
  write     mode, schema+rows or input (Parquet), [partition_by] [properties]
            [replace_where] [schema_mode: merge|overwrite] [options]
  create    schema+rows or input, [partition_by] [properties]
  delete    [predicate]
  update    set {col: sql expr}, [predicate]
  merge     schema+rows or input, on [keys] or condition (aliases t, s),
            [matched: update_all|delete|none] [not_matched: insert_all|none]
            [not_matched_by_source: delete]
  checkpoint, optimize [zorder] [where], vacuum [retention_hours], history [limit],
  set_properties {k: v}, sql (with {table} replaced by the path's table name)
An operation with "out": FILE writes its result to FILE instead of inline;
one with "conf": {key: value} sets those Spark session settings for itself
only (e.g. spark.databricks.delta.checkpointV2.topLevelFileFormat=parquet).
Each result has "ok", and "error" when it failed; a failed operation does not
stop the batch.
"""

import json
import os
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peerlib import spark as peer_spark  # noqa: E402


def serve():
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    if os.environ.get("DELTALITE_SPARK_LOG"):
        log = os.open(os.environ["DELTALITE_SPARK_LOG"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        os.dup2(log, 2)
    os.dup2(2, 1)  # anything else printed to stdout (the JVM included) goes to stderr
    # The Go side's process ending (SIGTERM) ends the server like end of input.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    started = time.monotonic()
    session = None
    try:
        session = peer_spark.session()
        print(json.dumps({"ready": True, "seconds": round(time.monotonic() - started, 3)}), file=proto, flush=True)
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                req = json.loads(line)
                results = peer_spark.run_ops(session, req.get("ops", []))
                resp = {"id": req.get("id"), "results": results}
            except Exception as e:  # noqa: BLE001
                resp = {"id": None, "error": f"{type(e).__name__}: {e}"}
            print(json.dumps(resp), file=proto, flush=True)
    finally:
        # The Go side may be gone, and stderr with it: nothing here may raise
        # before the scratch space is removed.
        try:
            if session is not None:
                session.stop()
        except BaseException:  # noqa: BLE001
            pass
        finally:
            peer_spark.cleanup()
            print("spark_ops: server stopped", file=sys.stderr, flush=True)


def prepare(resolve):
    import tempfile

    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="deltalite-spark-prepare-") as work:
        out, jars = peer_spark.make_archive(work, resolve=resolve)
    peer_spark.cleanup()
    what = f"resolved {jars} jars for {peer_spark.paths.DELTA_PACKAGE} and " if resolve else ""
    print(f"{what}recorded Spark's classes into {out} in {time.monotonic() - started:.1f}s")


def batch(ops_file, out_file):
    with open(ops_file) as f:
        ops = json.load(f)
    started = time.monotonic()
    session = peer_spark.session()
    startup = time.monotonic() - started
    try:
        doc = {"startup_seconds": round(startup, 3), "results": peer_spark.run_ops(session, ops)}
    finally:
        session.stop()
        peer_spark.cleanup()
    text = json.dumps(doc)
    if out_file:
        with open(out_file, "w") as f:
            f.write(text)
    else:
        print(text)
    return 0 if all(r.get("ok") for r in doc["results"]) else 1


def main(argv):
    if argv[:1] == ["--serve"]:
        serve()
        return 0
    if argv[:1] == ["--connect-server"] and len(argv) == 2:
        cmd, env = peer_spark.connect_server_command(int(argv[1]))
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(cmd[0], cmd, env)
    if argv[:1] in (["--resolve"], ["--archive"]):
        prepare(resolve=argv[0] == "--resolve")
        return 0
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    out = None
    if len(argv) >= 3 and argv[1] == "--out":
        out = argv[2]
    return batch(argv[0], out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
