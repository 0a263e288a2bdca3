"""Input data for the write scripts: a schema and rows in canonical form (see
canon.py), or a Parquet file, turned into an Arrow table.

Schema: a list of {"name": ..., "type": ..., "nullable": true}. Types use Delta's
names: string, long, integer, short, byte, float, double, boolean, binary, date,
timestamp (UTC), timestamp_ntz, decimal(p,s), array<T>, map<K,V>,
struct<name:T,...>. Arrow-style aliases (int64, int32, utf8, ...) are accepted too.
"""

import datetime
import decimal

import pyarrow as pa
import pyarrow.parquet as pq

from peerlib import canon

_PRIMITIVES = {
    "string": pa.string(),
    "utf8": pa.string(),
    "long": pa.int64(),
    "bigint": pa.int64(),
    "int64": pa.int64(),
    "integer": pa.int32(),
    "int": pa.int32(),
    "int32": pa.int32(),
    "short": pa.int16(),
    "smallint": pa.int16(),
    "int16": pa.int16(),
    "byte": pa.int8(),
    "tinyint": pa.int8(),
    "int8": pa.int8(),
    "float": pa.float32(),
    "float32": pa.float32(),
    "double": pa.float64(),
    "float64": pa.float64(),
    "boolean": pa.bool_(),
    "bool": pa.bool_(),
    "binary": pa.binary(),
    "date": pa.date32(),
    "timestamp": pa.timestamp("us", tz="UTC"),
    "timestamp_ntz": pa.timestamp("us"),
}


def _split_top(s, sep=","):
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if cur:
        parts.append("".join(cur).strip())
    return parts


def arrow_type(s):
    """Arrow type for a Delta type name."""
    s = s.strip()
    low = s.lower()
    if low in _PRIMITIVES:
        return _PRIMITIVES[low]
    if low.startswith("decimal(") and low.endswith(")"):
        p, sc = (int(x) for x in low[len("decimal(") : -1].split(","))
        return pa.decimal128(p, sc)
    if low.startswith("array<") and low.endswith(">"):
        return pa.list_(arrow_type(s[len("array<") : -1]))
    if low.startswith("map<") and low.endswith(">"):
        k, v = _split_top(s[len("map<") : -1])
        return pa.map_(arrow_type(k), arrow_type(v))
    if low.startswith("struct<") and low.endswith(">"):
        fields = []
        for part in _split_top(s[len("struct<") : -1]):
            name, _, typ = part.partition(":")
            fields.append(pa.field(name.strip(), arrow_type(typ)))
        return pa.struct(fields)
    raise ValueError(f"unknown type {s!r}")


def arrow_schema(spec):
    return pa.schema(
        [pa.field(f["name"], arrow_type(f["type"]), nullable=f.get("nullable", True)) for f in spec]
    )


def _value(v, t):
    """Python value pyarrow accepts for type t, from its canonical form."""
    if v is None:
        return None
    if pa.types.is_timestamp(t):
        if isinstance(v, str):
            d = datetime.datetime.fromisoformat(v.replace("Z", "+00:00"))
            if t.tz is None:
                return d.replace(tzinfo=None)
            return d if d.tzinfo else d.replace(tzinfo=datetime.timezone.utc)
        return canon.micros_to_datetime(v, tz=t.tz is not None)
    if pa.types.is_date(t):
        return datetime.date.fromisoformat(v) if isinstance(v, str) else datetime.date(1970, 1, 1) + datetime.timedelta(days=v)
    if pa.types.is_decimal(t):
        return decimal.Decimal(str(v))
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return bytes.fromhex(v) if isinstance(v, str) else bytes(v)
    if pa.types.is_floating(t) and isinstance(v, str):
        return float({"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}.get(v, v))
    if pa.types.is_struct(t):
        return {t.field(i).name: _value(v.get(t.field(i).name), t.field(i).type) for i in range(t.num_fields)}
    if pa.types.is_map(t):
        pairs = v.items() if isinstance(v, dict) else v
        return [(_value(k, t.key_type), _value(x, t.item_type)) for k, x in pairs]
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [_value(x, t.value_type) for x in v]
    return v


def table_from_rows(schema_spec, rows):
    schema = arrow_schema(schema_spec)
    arrays = []
    for field in schema:
        arrays.append(pa.array([_value(r.get(field.name), field.type) for r in rows], type=field.type))
    return pa.Table.from_arrays(arrays, schema=schema)


def load(spec):
    """Arrow table from a step: {"input": "file.parquet"} or {"schema": [...], "rows": [...]}."""
    if spec.get("input"):
        return pq.read_table(spec["input"])
    if "schema" not in spec:
        raise ValueError("a write needs either 'input' (a Parquet file) or 'schema' and 'rows'")
    return table_from_rows(spec["schema"], spec.get("rows", []))
