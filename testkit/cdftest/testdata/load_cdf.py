"""delta-rs side of the change data feed parity suite (testkit/cdftest):
reads the change data feed of many tables with DeltaTable.load_cdf in one
process and writes each table's change rows as a canonical document
(python/peerlib/canon.py), projected on the columns the spec names.

  load_cdf.py SPEC.json

Spec:
  {"columns": ["id", "grp", "n", "w", "_change_type", "_commit_version"],
   "tables": [{"path": "/tmp/t0", "from": 0, "out": "/tmp/t0.json"}, ...]}

Prints {"results": [{"ok": true} | {"ok": false, "error": "..."}]}, one per
table, in order; a table that fails does not stop the others.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.environ.get("DELTALITE_ROOT", "."), "python"))

from peerlib import canon  # noqa: E402


def main(argv):
    import pyarrow as pa
    from deltalake import DeltaTable

    with open(argv[0]) as f:
        spec = json.load(f)
    results = []
    for t in spec["tables"]:
        try:
            reader = DeltaTable(t["path"]).load_cdf(starting_version=int(t.get("from", 0)))
            table = pa.table(reader.read_all()).select(spec["columns"])
            with open(t["out"], "w") as f:
                json.dump(canon.document(table, engine="deltalake"), f)
            results.append({"ok": True})
        except Exception as e:  # noqa: BLE001 - every failure is reported to the caller
            results.append({"ok": False, "error": f"{type(e).__name__}: {e}"})
    print(json.dumps({"results": results}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
