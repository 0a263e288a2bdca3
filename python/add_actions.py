"""Prints what delta-rs makes of a table's add actions, as JSON: the files a
partition filter keeps and the statistics delta-rs parsed per file, so that Go
tests can check that delta-rs's file skipping works on the statistics this
engine writes.

  add_actions.py PATH [--partition col=value ...]
Prints {"files": [...uris kept...], "stats": [{"path", "num_records",
"min": {col: value}, "max": {...}, "null_count": {...}}]}.
"""

import argparse
import json

from deltalake import DeltaTable


def main():
    p = argparse.ArgumentParser()
    p.add_argument("path")
    p.add_argument("--partition", action="append", default=[])
    a = p.parse_args()
    dt = DeltaTable(a.path)
    filters = [tuple([*f.split("=", 1)[:1], "=", f.split("=", 1)[1]]) for f in a.partition] or None
    files = sorted(dt.file_uris(partition_filters=filters))
    import pyarrow as pa

    actions = dt.get_add_actions(flatten=True)
    table = (actions if isinstance(actions, pa.Table) else pa.table(actions)).to_pydict()
    stats = []
    for i, path in enumerate(table["path"]):
        entry = {"path": path, "num_records": table.get("num_records", [None] * (i + 1))[i], "min": {}, "max": {}, "null_count": {}}
        for key, values in table.items():
            for prefix, dest in (("min.", "min"), ("max.", "max"), ("null_count.", "null_count")):
                if key.startswith(prefix):
                    entry[dest][key[len(prefix):]] = values[i]
        stats.append(entry)
    print(json.dumps({"files": files, "stats": stats}, default=str, sort_keys=True))


if __name__ == "__main__":
    main()
