"""Reads a Delta table with a peer engine and prints its rows as canonical JSON
(see peerlib/canon.py), so that Go tests can compare them with deltalite's.

  read_table.py PATH [--engine deltalake|pyarrow|duckdb|duckdb-delta|polars|spark]
                [--version N] [--timestamp RFC3339] [--columns a,b]
                [--partition col=value ...] [--out FILE]

Engines:
  deltalake  delta-rs's query engine (QueryBuilder over the DeltaTable)
  pyarrow    delta-rs plans the files (file list and partition values from the
             log); pyarrow reads each Parquet file
  duckdb     the same plan, DuckDB's Parquet reader reads each file
  duckdb-delta  DuckDB's own delta extension (delta-kernel-rs) plans and reads:
             its delta_scan, loaded offline from the file the
             duckdb-extension-delta wheel ships
  polars     polars.read_delta
  spark      Spark + Delta Lake in local mode (slow to start; batch through
             spark_ops.py where you can)
The pyarrow and duckdb routes refuse tables with deletion vectors or column
mapping, which a plain Parquet read cannot honour.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from urllib.parse import unquote  # noqa: E402

import pyarrow as pa  # noqa: E402

from peerlib import canon  # noqa: E402


def _delta_table(args):
    from deltalake import DeltaTable

    dt = DeltaTable(args.path)
    if args.version is not None:
        dt.load_as_version(args.version)
    elif args.timestamp:
        dt.load_as_version(args.timestamp)
    return dt


def _partition_filters(args):
    out = []
    for p in args.partition or []:
        k, _, v = p.partition("=")
        out.append((k, "=", v))
    return out or None


def read_deltalake(args):
    # delta-rs's own query engine: unlike to_pyarrow_table it applies deletion
    # vectors and reads INT96 timestamps outside the nanosecond range.
    from deltalake import QueryBuilder

    dt = _delta_table(args)
    cols = ", ".join(_ident(c) for c in args.columns) if args.columns else "*"
    sql = f"SELECT {cols} FROM t"
    filters = _partition_filters(args)
    if filters:
        sql += " WHERE " + " AND ".join(f"CAST({_ident(k)} AS VARCHAR) = {_literal(v)}" for k, _, v in filters)
    reader = QueryBuilder().register("t", dt).execute(sql)
    return pa.table(reader.read_all()), dt.version()


def _ident(name):
    return '"' + name.replace('"', '""') + '"'


def _literal(v):
    return "'" + v.replace("'", "''") + "'"


def _plain_parquet_plan(args):
    dt = _delta_table(args)
    proto = dt.protocol()
    features = set((proto.reader_features or []) + (proto.writer_features or []))
    config = dt.metadata().configuration or {}
    if "deletionVectors" in features and config.get("delta.enableDeletionVectors") == "true":
        raise SystemExit("this engine reads plain Parquet files and cannot apply deletion vectors")
    if config.get("delta.columnMapping.mode", "none") != "none":
        raise SystemExit("this engine reads plain Parquet files and cannot apply column mapping")
    schema = pa.schema(dt.schema().to_arrow())
    partition_cols = dt.metadata().partition_columns
    actions = dt.get_add_actions(flatten=True)
    actions = pa.table(actions) if not isinstance(actions, pa.Table) else actions
    paths = actions.column("path").to_pylist()
    parts = []
    for i in range(len(paths)):
        parts.append({c: actions.column(f"partition.{c}")[i].as_py() for c in partition_cols})
    base = dt.table_uri.rstrip("/")
    if base.startswith("file://"):
        base = base[len("file://") :]
    files = [p if "://" in p or p.startswith("/") else f"{base}/{unquote(p)}" for p in paths]
    return dt, schema, partition_cols, list(zip(files, parts))


def _assemble(schema, partition_cols, pieces, columns):
    tables = []
    for data, parts in pieces:
        cols = []
        for field in schema:
            if field.name in partition_cols:
                # delta-rs gives partition values already typed (dates,
                # booleans, numbers): build the column with the field's type.
                v = parts.get(field.name)
                cols.append(pa.array([v] * data.num_rows, type=field.type))
            else:
                cols.append(data.column(field.name).cast(field.type))
        tables.append(pa.Table.from_arrays(cols, schema=schema))
    table = pa.concat_tables(tables) if tables else schema.empty_table()
    if columns:
        table = table.select(columns)
    return table


def read_pyarrow(args):
    import pyarrow.parquet as pq

    dt, schema, partition_cols, plan = _plain_parquet_plan(args)
    pieces = [(pq.read_table(f, coerce_int96_timestamp_unit="us"), parts) for f, parts in plan]
    return _assemble(schema, partition_cols, pieces, args.columns), dt.version()


def read_duckdb(args):
    import duckdb

    dt, schema, partition_cols, plan = _plain_parquet_plan(args)
    con = duckdb.connect()
    pieces = []
    for f, parts in plan:
        literal = "'" + f.replace("'", "''") + "'"
        pieces.append((con.sql(f"SELECT * FROM read_parquet({literal})").to_arrow_table(), parts))
    return _assemble(schema, partition_cols, pieces, args.columns), dt.version()


def delta_extension_path():
    """The delta extension file of the duckdb-extension-delta wheel, for the
    DuckDB it was built for (an extension loads only into its exact version)."""
    import duckdb
    import duckdb_extension_delta

    base = os.path.join(os.path.dirname(duckdb_extension_delta.__file__), "extensions")
    path = os.path.join(base, "v" + duckdb.__version__, "delta.duckdb_extension")
    if not os.path.exists(path):
        have = sorted(os.listdir(base)) if os.path.isdir(base) else []
        raise SystemExit(f"duckdb-extension-delta has no extension for DuckDB {duckdb.__version__} (it has {have}): pin the two to the same version")
    return path


def delta_extension_connection():
    """A DuckDB connection with the delta extension loaded from the wheel,
    never from the network."""
    import duckdb

    con = duckdb.connect(config={"autoinstall_known_extensions": False, "autoload_known_extensions": False})
    con.load_extension(delta_extension_path())
    return con


def read_duckdb_delta(args):
    if args.timestamp:
        raise SystemExit("duckdb-delta: --timestamp is not wired here, give --version")
    con = delta_extension_connection()
    call = "delta_scan(" + _literal(os.path.abspath(args.path)) + (f", version => {int(args.version)}" if args.version is not None else "") + ")"
    cols = ", ".join(_ident(c) for c in args.columns) if args.columns else "*"
    sql = f"SELECT {cols} FROM {call}"
    filters = _partition_filters(args)
    if filters:
        sql += " WHERE " + " AND ".join(f"CAST({_ident(k)} AS VARCHAR) = {_literal(v)}" for k, _, v in filters)
    return con.sql(sql).to_arrow_table(), args.version


def read_polars(args):
    import polars as pl

    version = args.version if args.version is not None else args.timestamp
    df = pl.read_delta(args.path, version=version, columns=args.columns)
    return df.to_arrow(), args.version


def read_spark(args):
    from peerlib import spark as peer_spark

    session = peer_spark.session()
    op = {"op": "read", "path": args.path, "version": args.version, "timestamp": args.timestamp, "columns": args.columns}
    if args.partition:
        op["where"] = " AND ".join(f"`{k}` = '{v}'" for k, _, v in (p.partition("=") for p in args.partition))
    result = peer_spark.run_op(session, op)
    session.stop()
    peer_spark.cleanup()
    if not result.get("ok"):
        raise SystemExit(result.get("error"))
    return result, args.version


ENGINES = {
    "deltalake": read_deltalake,
    "pyarrow": read_pyarrow,
    "duckdb": read_duckdb,
    "duckdb-delta": read_duckdb_delta,
    "polars": read_polars,
    "spark": read_spark,
}


def main(argv):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path")
    p.add_argument("--engine", default="deltalake", choices=sorted(ENGINES))
    p.add_argument("--version", type=int)
    p.add_argument("--timestamp")
    p.add_argument("--columns", type=lambda s: [c for c in s.split(",") if c])
    p.add_argument("--partition", action="append", help="col=value, as delta-rs partition filters")
    p.add_argument("--out", help="write the JSON here instead of stdout")
    args = p.parse_args(argv)

    table, version = ENGINES[args.engine](args)
    if isinstance(table, dict):  # already a canonical document (spark)
        doc = {k: v for k, v in table.items() if k not in ("ok", "op", "seconds")}
        doc["engine"] = "spark"
    else:
        doc = canon.document(table, engine=args.engine, version=version)
    text = json.dumps(doc, ensure_ascii=False)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
