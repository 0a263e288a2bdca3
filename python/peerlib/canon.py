"""Canonical JSON rows from Arrow data, so that Go tests can compare what a
peer engine read with what deltalite read.

Canonical form of a value, by Arrow type:
  integers, booleans, strings   as JSON
  floating point                JSON numbers; NaN and infinities as the strings
                                "NaN", "Infinity", "-Infinity"
  decimal                       string in plain notation with the type's scale ("1.50")
  timestamp (any unit, with or  integer microseconds since the Unix epoch (UTC for
  without time zone)            zoned timestamps, the wall clock read as UTC otherwise)
  date                          "YYYY-MM-DD"
  time                          integer microseconds since midnight
  binary                        lowercase hex string
  struct                        JSON object
  list                          JSON array
  map                           JSON array of [key, value] pairs sorted by key
  null                          null
Rows are JSON objects keyed by column name and are sorted by their compact JSON
text with sorted keys.

The document also carries "schema": the fields with their types in a small JSON
form that the Go side turns back into Arrow (see describe_type), so that the
peer's rows can be rebuilt as Arrow records exactly, float32 and all.
"""

import datetime
import json
import math

import numpy as np
import pyarrow as pa
import pyarrow.types as pat

_MICROS_PER_UNIT = {"s": 1_000_000, "ms": 1_000, "us": 1, "ns": None}


def _float(v):
    if v is None:
        return None
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "Infinity" if v > 0 else "-Infinity"
    return v


def _micros(ints, unit):
    factor = _MICROS_PER_UNIT[unit]
    out = []
    for v in ints:
        if v is None:
            out.append(None)
        elif factor is None:
            out.append(v // 1000)
        else:
            out.append(v * factor)
    return out


def values(arr):
    """Canonical Python values of an Arrow array or chunked array."""
    if isinstance(arr, pa.ChunkedArray):
        out = []
        for chunk in arr.chunks:
            out.extend(values(chunk))
        return out
    t = arr.type
    if pat.is_dictionary(t):
        return values(arr.dictionary_decode())
    if pat.is_null(t):
        return [None] * len(arr)
    if pat.is_timestamp(t):
        return _micros(arr.cast(pa.int64()).to_pylist(), t.unit)
    if pat.is_time(t):
        return _micros(arr.cast(pa.int64()).to_pylist(), t.unit)
    if pat.is_duration(t):
        return _micros(arr.cast(pa.int64()).to_pylist(), t.unit)
    if pat.is_date(t):
        return [None if v is None else v.isoformat() for v in arr.to_pylist()]
    if pat.is_decimal(t):
        return [None if v is None else format(v, "f") for v in arr.to_pylist()]
    if pat.is_binary(t) or pat.is_large_binary(t) or pat.is_fixed_size_binary(t) or _is_binary_view(t):
        return [None if v is None else v.hex() for v in arr.to_pylist()]
    if pat.is_floating(t):
        if t.bit_width < 64:
            # The shortest decimal that reads back as the same float32, as Go's
            # strconv.FormatFloat(v, 'g', -1, 32) prints it, not its float64 widening.
            return [_float(v if v is None or not math.isfinite(v) else float(str(np.float32(v)))) for v in arr.to_pylist()]
        return [_float(v) for v in arr.to_pylist()]
    if pat.is_struct(t):
        valid = arr.is_valid().to_pylist()
        cols = [(t.field(i).name, values(arr.field(i))) for i in range(t.num_fields)]
        out = []
        for r, ok in enumerate(valid):
            out.append({name: col[r] for name, col in cols} if ok else None)
        return out
    if pat.is_map(t):
        entries = arr.values
        pairs = list(zip(values(entries.field(0)), values(entries.field(1))))
        return _by_offsets(arr, pairs, sort_pairs=True)
    if pat.is_list(t) or pat.is_large_list(t):
        return _by_offsets(arr, values(arr.values))
    if pat.is_fixed_size_list(t):
        flat = values(arr.flatten())
        n = t.list_size
        valid = arr.is_valid().to_pylist()
        out, pos = [], 0
        for ok in valid:
            if ok:
                out.append(flat[pos : pos + n])
                pos += n
            else:
                out.append(None)
        return out
    if _is_list_view(t):
        return arr.to_pylist()
    return arr.to_pylist()


def _is_binary_view(t):
    f = getattr(pat, "is_binary_view", None)
    return bool(f and f(t))


def _is_list_view(t):
    f = getattr(pat, "is_list_view", None)
    g = getattr(pat, "is_large_list_view", None)
    return bool((f and f(t)) or (g and g(t)))


def _by_offsets(arr, flat, sort_pairs=False):
    """Splits the canonical values of a list or map array's child by the
    array's offsets (which index into the unsliced child)."""
    offsets = arr.offsets.to_pylist()
    valid = arr.is_valid().to_pylist()
    out = []
    for i, ok in enumerate(valid):
        if not ok:
            out.append(None)
            continue
        chunk = flat[offsets[i] : offsets[i + 1]]
        if sort_pairs:
            chunk = sorted(([k, v] for k, v in chunk), key=lambda kv: dumps(kv[0]))
        out.append(chunk)
    return out


def dumps(v):
    return json.dumps(v, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def rows(table: pa.Table):
    """Canonical rows of an Arrow table, sorted."""
    cols = [(name, values(table.column(i))) for i, name in enumerate(table.column_names)]
    out = [{name: col[r] for name, col in cols} for r in range(table.num_rows)]
    out.sort(key=dumps)
    return out


def describe_type(t):
    """A type as the Go side reads it back: a string for a primitive
    ("int8".."int64", "uint8".."uint64", "float16", "float32", "float64", "bool",
    "string", "binary", "date", "timestamp", "timestamp_ntz", "time",
    "decimal(p,s)", "null") or an object for a nested type
    ({"struct": [field...]}, {"list": field}, {"map": [key field, value field]}).
    Values follow the canonical forms of this module, so timestamps are always
    microseconds and every string or binary kind is one kind."""
    if pat.is_dictionary(t):
        return describe_type(t.value_type)
    if pat.is_integer(t):
        return ("int" if pat.is_signed_integer(t) else "uint") + str(t.bit_width)
    if pat.is_floating(t):
        return "float" + str(t.bit_width)
    if pat.is_boolean(t):
        return "bool"
    if pat.is_string(t) or pat.is_large_string(t) or str(t) == "string_view":
        return "string"
    if pat.is_binary(t) or pat.is_large_binary(t) or pat.is_fixed_size_binary(t) or _is_binary_view(t):
        return "binary"
    if pat.is_date(t):
        return "date"
    if pat.is_timestamp(t):
        return "timestamp" if t.tz is not None else "timestamp_ntz"
    if pat.is_time(t):
        return "time"
    if pat.is_duration(t):
        return "int64"
    if pat.is_decimal(t):
        return f"decimal({t.precision},{t.scale})"
    if pat.is_null(t):
        return "null"
    if pat.is_struct(t):
        return {"struct": [describe_field(t.field(i)) for i in range(t.num_fields)]}
    if pat.is_map(t):
        return {"map": [describe_field(t.key_field), describe_field(t.item_field)]}
    if pat.is_list(t) or pat.is_large_list(t) or pat.is_fixed_size_list(t) or _is_list_view(t):
        return {"list": describe_field(t.value_field)}
    raise ValueError(f"no canonical form for Arrow type {t}")


def describe_field(f):
    return {"name": f.name, "type": describe_type(f.type), "nullable": f.nullable}


def document(table: pa.Table, **extra):
    """The JSON document the read scripts print: columns, types and rows."""
    doc = dict(extra)
    doc["columns"] = list(table.column_names)
    doc["types"] = [str(f.type) for f in table.schema]
    doc["schema"] = [describe_field(f) for f in table.schema]
    doc["num_rows"] = table.num_rows
    doc["rows"] = rows(table)
    return doc


def micros_to_datetime(v, tz=True):
    base = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc if tz else None)
    return base + datetime.timedelta(microseconds=v)
