"""Spark with Delta Lake in local mode, and the operations the Go tests ask it
to run. Starting the JVM costs seconds, so one session runs many operations:
see spark_ops.py for the batch file and the line-by-line server modes.
"""

import json
import os
import shutil
import sys
import tempfile
import time
import traceback

from peerlib import canon, data, paths


def _record_jar_list(session):
    """Records the jars Spark resolved for the Delta package in
    .cache/spark/jars.txt, so later sessions start without resolving."""
    jars = session.sparkContext.getConf().get("spark.jars", "")
    files = ["/" + j[len("file:") :].lstrip("/") for j in jars.split(",") if j]
    missing = [f for f in files if not os.path.exists(f)]
    if not files or missing:
        raise RuntimeError(f"Spark resolved no usable Delta jars (missing: {missing})")
    out = paths.jar_list_file()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text("# " + paths.DELTA_PACKAGE + "\n" + "\n".join(files) + "\n")
    tmp.replace(out)
    return files


def jar_list():
    """The resolved Delta jars, or an error that says how to get them."""
    f = paths.jar_list_file()
    hint = "run scripts/setup-test-env.sh"
    if not f.exists():
        raise RuntimeError(f"{f} is missing: {hint}")
    lines = f.read_text().splitlines()
    if not lines or lines[0] != "# " + paths.DELTA_PACKAGE:
        raise RuntimeError(f"{f} is for another Delta version than {paths.DELTA_PACKAGE}: {hint}")
    jars = [line for line in lines[1:] if line.strip()]
    missing = [j for j in jars if not os.path.exists(j)]
    if missing:
        raise RuntimeError(f"Delta jars missing from the cache ({missing[0]}): {hint}")
    return jars


_scratch_dirs = []


def cleanup():
    """Removes the scratch directories of the sessions this process made."""
    while _scratch_dirs:
        shutil.rmtree(_scratch_dirs.pop(), ignore_errors=True)


# JVM options for short test sessions: the C1 compiler only and the serial
# collector start faster and use less CPU on a small machine than the
# defaults, which are tuned for long-running jobs. DELTALITE_SPARK_JAVA_OPTS
# replaces them.
JAVA_OPTS = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xlog:cds=off -Xlog:cds+dynamic=off"


def _java_opts(scratch, archive_opt=""):
    opts = os.environ.get("DELTALITE_SPARK_JAVA_OPTS", JAVA_OPTS)
    return f"{opts} {archive_opt} -Dderby.system.home={scratch}".strip()


def archive_file():
    return paths.cache_dir() / "spark" / "classes.jsa"


def _archive_key():
    """What the class archive depends on: the JVM, Spark and the Delta jars,
    and the JVM options."""
    import hashlib
    import shutil as _sh

    import pyspark

    java = os.path.realpath(_sh.which("java") or "java")
    st = os.stat(java) if os.path.exists(java) else None
    parts = [
        java,
        str(st.st_mtime_ns if st else 0),
        pyspark.__version__,
        paths.jar_list_file().read_text() if paths.jar_list_file().exists() else "",
        os.environ.get("DELTALITE_SPARK_JAVA_OPTS", JAVA_OPTS),
    ]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def archive_ok():
    """Whether the class archive exists and matches this environment."""
    key = archive_file().with_suffix(".key")
    return archive_file().exists() and key.exists() and key.read_text().strip() == _archive_key()


def _conf(extra, archive_opt=""):
    """The Spark configuration of a local session with Delta (extra added),
    with a fresh scratch directory for its warehouse and spill files."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    scratch = tempfile.mkdtemp(prefix="deltalite-spark-")
    _scratch_dirs.append(scratch)
    conf = {
        "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
        "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.driver.host": "127.0.0.1",
        "spark.driver.bindAddress": "127.0.0.1",
        "spark.driver.memory": os.environ.get("DELTALITE_SPARK_MEMORY", "2g"),
        "spark.sql.shuffle.partitions": "2",
        "spark.default.parallelism": "2",
        "spark.databricks.delta.snapshotPartitions": "2",
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.warehouse.dir": os.path.join(scratch, "warehouse"),
        "spark.local.dir": os.path.join(scratch, "local"),
        "spark.driver.extraJavaOptions": _java_opts(scratch, archive_opt),
        "spark.databricks.delta.retentionDurationCheck.enabled": "false",
    }
    conf.update(extra)
    return conf


def _master():
    return os.environ.get("DELTALITE_SPARK_MASTER", "local[2]")


def _builder(extra, archive_opt=""):
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(_master()).appName("deltalite-peers")
    for k, v in _conf(extra, archive_opt).items():
        builder = builder.config(k, v)
    return builder


def _archive_opt():
    return f"-XX:SharedArchiveFile={archive_file()}" if archive_ok() else ""


def connect_server_command(port):
    """The command of a Spark Connect server with Delta, bound to
    127.0.0.1:port, as the local sessions are configured: the pinned
    pyspark's spark-submit with the cached Delta jars (nothing is
    downloaded). Its scratch directory is left for the caller to remove
    (DELTALITE_SPARK_SCRATCH names it)."""
    import pyspark

    home = os.path.dirname(pyspark.__file__)
    conf = _conf(
        {
            "spark.jars": ",".join(jar_list()),
            "spark.connect.grpc.binding.address": "127.0.0.1",
            "spark.connect.grpc.binding.port": str(port),
        },
        _archive_opt(),
    )
    cmd = [os.path.join(home, "bin", "spark-submit"), "--master", _master(), "--name", "deltalite-connect",
           "--class", "org.apache.spark.sql.connect.service.SparkConnectServer"]
    for k, v in conf.items():
        cmd += ["--conf", f"{k}={v}"]
    env = dict(os.environ, SPARK_HOME=home, DELTALITE_SPARK_SCRATCH=_scratch_dirs[-1])
    return cmd, env


def session():
    """A local Spark session with Delta, from the cached jars (and with the
    class archive that setup made, when it matches: it halves start-up)."""
    s = _builder({"spark.jars": ",".join(jar_list())}, _archive_opt()).getOrCreate()
    s.sparkContext.setLogLevel("ERROR")
    return s


def make_archive(workdir, resolve=False):
    """Records the classes a typical session loads into a JVM class-data
    sharing archive (.cache/spark/classes.jsa), which later sessions map
    instead of loading and verifying those classes again. With resolve, the
    session first resolves the Delta jars from Maven Central through Spark's
    own Ivy resolution into .cache/ivy and records them (see jar_list).
    Returns the archive's path and the number of jars."""
    from pyspark import SparkContext

    out = archive_file()
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".jsa.tmp")
    tmp.unlink(missing_ok=True)
    out.with_suffix(".key").unlink(missing_ok=True)
    if resolve:
        extra = {"spark.jars.packages": paths.DELTA_PACKAGE, "spark.jars.ivy": str(paths.ivy_dir())}
    else:
        extra = {"spark.jars": ",".join(jar_list())}
    s = _builder(extra, f"-XX:ArchiveClassesAtExit={tmp}").getOrCreate()
    s.sparkContext.setLogLevel("ERROR")
    jars = _record_jar_list(s) if resolve else jar_list()
    table = os.path.join(workdir, "t")
    rows = {"schema": [{"name": "id", "type": "long"}, {"name": "p", "type": "string"}],
            "rows": [{"id": i, "p": "ab"[i % 2]} for i in range(10)]}
    ops = [
        dict(rows, op="write", path=table, partition_by=["p"], properties={"delta.enableDeletionVectors": "true"}),
        {"op": "delete", "path": table, "predicate": "id = 1"},
        {"op": "update", "path": table, "predicate": "id = 2", "set": {"p": "'c'"}},
        dict(rows, op="merge", path=table, on=["id"]),
        {"op": "checkpoint", "path": table},
        {"op": "read", "path": table},
        {"op": "read", "path": table, "version": 0},
        {"op": "history", "path": table},
    ]
    results = run_ops(s, ops)
    failed = [r for r in results if not r.get("ok")]
    proc = getattr(SparkContext._gateway, "proc", None)
    s.stop()
    if proc is not None:
        # The JVM writes the archive when it exits, which it does at the end
        # of its input.
        proc.stdin.close()
        proc.wait(timeout=300)
    if failed:
        raise RuntimeError(f"Spark failed while recording its classes: {failed}")
    if not tmp.exists():
        raise RuntimeError("the JVM wrote no class archive")
    tmp.replace(out)
    out.with_suffix(".key").write_text(_archive_key() + "\n")
    return out, len(jars)


def _qualified(path):
    return "delta.`" + path.replace("`", "``") + "`"


def _frame(spark, step):
    from pyspark.sql.pandas.types import from_arrow_schema

    table = data.load(step)
    # Timestamps without a time zone stay TIMESTAMP_NTZ; nullability is kept.
    return spark.createDataFrame(table, schema=from_arrow_schema(table.schema, prefer_timestamp_ntz=True))


def _read(spark, op):
    reader = spark.read.format("delta")
    if op.get("version") is not None:
        reader = reader.option("versionAsOf", int(op["version"]))
    if op.get("timestamp"):
        reader = reader.option("timestampAsOf", op["timestamp"])
    df = reader.load(op["path"])
    if op.get("where"):
        df = df.where(op["where"])
    if op.get("columns"):
        df = df.select(*op["columns"])
    return canon.document(df.toArrow(), engine="spark", version=op.get("version"))


def _create(spark, op, df_schema=None):
    from delta.tables import DeltaTable

    b = DeltaTable.createIfNotExists(spark).location(op["path"])
    if df_schema is not None:
        b = b.addColumns(df_schema)
    else:
        b = b.addColumns(_frame(spark, op).schema)
    if op.get("partition_by"):
        b = b.partitionedBy(*op["partition_by"])
    for k, v in (op.get("properties") or {}).items():
        b = b.property(k, str(v))
    b.execute()


def _table_exists(spark, path):
    from delta.tables import DeltaTable

    return DeltaTable.isDeltaTable(spark, path)


def _write(spark, op):
    df = _frame(spark, op)
    mode = op.get("mode", "append")
    if op.get("properties") and not _table_exists(spark, op["path"]):
        _create(spark, op, df.schema)
    w = df.write.format("delta").mode(mode)
    if op.get("partition_by"):
        w = w.partitionBy(*op["partition_by"])
    if op.get("replace_where"):
        w = w.option("replaceWhere", op["replace_where"])
    if op.get("schema_mode") == "merge":
        w = w.option("mergeSchema", "true")
    elif op.get("schema_mode") == "overwrite":
        w = w.option("overwriteSchema", "true")
    for k, v in (op.get("options") or {}).items():
        w = w.option(k, str(v))
    w.save(op["path"])
    return {}


def _sql(spark, op):
    text = op["sql"]
    if op.get("path"):
        text = text.replace("{table}", _qualified(op["path"]))
    df = spark.sql(text)
    if op.get("collect", True) and len(df.columns) > 0:
        return canon.document(df.toArrow())
    return {}


def _delta_table(spark, path):
    from delta.tables import DeltaTable

    return DeltaTable.forPath(spark, path)


def _delete(spark, op):
    _delta_table(spark, op["path"]).delete(op.get("predicate"))
    return {}


def _update(spark, op):
    _delta_table(spark, op["path"]).update(condition=op.get("predicate"), set=op["set"])
    return {}


def _merge(spark, op):
    source = _frame(spark, op)
    cond = op.get("condition") or " AND ".join(f"t.`{k}` = s.`{k}`" for k in op["on"])
    m = _delta_table(spark, op["path"]).alias("t").merge(source.alias("s"), cond)
    matched = op.get("matched", "update_all")
    if matched == "update_all":
        m = m.whenMatchedUpdateAll()
    elif matched == "delete":
        m = m.whenMatchedDelete()
    if op.get("not_matched", "insert_all") == "insert_all":
        m = m.whenNotMatchedInsertAll()
    if op.get("not_matched_by_source") == "delete":
        m = m.whenNotMatchedBySourceDelete()
    m.execute()
    return {}


def _checkpoint(spark, op):
    jvm = spark._jvm
    log = jvm.org.apache.spark.sql.delta.DeltaLog.forTable(spark._jsparkSession, op["path"])
    log.checkpoint()
    return {}


def _optimize(spark, op):
    t = _delta_table(spark, op["path"]).optimize()
    if op.get("where"):
        t = t.where(op["where"])
    if op.get("zorder"):
        t.executeZOrderBy(*op["zorder"])
    else:
        t.executeCompaction()
    return {}


def _vacuum(spark, op):
    _delta_table(spark, op["path"]).vacuum(float(op.get("retention_hours", 168)))
    return {}


def _history(spark, op):
    df = _delta_table(spark, op["path"]).history(int(op["limit"]) if op.get("limit") else None)
    df = df.select("version", "operation", "timestamp", "operationParameters")
    return canon.document(df.toArrow())


def _set_properties(spark, op):
    props = ", ".join(f"'{k}' = '{v}'" for k, v in op["properties"].items())
    spark.sql(f"ALTER TABLE {_qualified(op['path'])} SET TBLPROPERTIES ({props})")
    return {}


def _create_op(spark, op):
    _create(spark, op)
    return {}


OPS = {
    "read": _read,
    "write": _write,
    "sql": _sql,
    "create": _create_op,
    "delete": _delete,
    "update": _update,
    "merge": _merge,
    "checkpoint": _checkpoint,
    "optimize": _optimize,
    "vacuum": _vacuum,
    "history": _history,
    "set_properties": _set_properties,
}


def _short_error(e):
    text = str(e).strip() or type(e).__name__
    lines = text.splitlines()
    # Keep the message, drop the JVM stack trace.
    keep = [ln for ln in lines if not ln.lstrip().startswith("at ")][:20]
    return f"{type(e).__name__}: " + "\n".join(keep)


def run_op(spark, op):
    """Runs one operation; errors are returned, not raised, so that a batch
    goes on after an operation that was expected to fail."""
    started = time.monotonic()
    name = op.get("op")
    saved = {}
    try:
        fn = OPS.get(name)
        if fn is None:
            raise ValueError(f"unknown op {name!r}; known: {sorted(OPS)}")
        # Session settings for this operation only, e.g.
        # spark.databricks.delta.checkpointV2.topLevelFileFormat=parquet.
        for k, v in (op.get("conf") or {}).items():
            saved[k] = spark.conf.get(k, None)
            spark.conf.set(k, str(v))
        result = fn(spark, op) or {}
        result["ok"] = True
    except Exception as e:  # noqa: BLE001 - every failure is reported to the caller
        result = {"ok": False, "error": _short_error(e)}
        if os.environ.get("DELTALITE_PEERS_VERBOSE"):
            traceback.print_exc(file=sys.stderr)
    finally:
        for k, v in saved.items():
            if v is None:
                spark.conf.unset(k)
            else:
                spark.conf.set(k, v)
    result["op"] = name
    result["seconds"] = round(time.monotonic() - started, 3)
    if op.get("out") and result.get("ok"):
        with open(op["out"], "w") as f:
            json.dump(result, f)
        result = {"op": name, "ok": True, "out": op["out"], "seconds": result["seconds"]}
    return result


def run_ops(spark, ops):
    return [run_op(spark, op) for op in ops]
