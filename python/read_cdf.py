"""Reads a Delta table's change data feed with delta-rs (DeltaTable.load_cdf)
and prints the change rows as canonical JSON (see peerlib/canon.py).

  read_cdf.py PATH --from N [--to M]
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peerlib import canon  # noqa: E402


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("path")
    p.add_argument("--from", dest="start", type=int, required=True)
    p.add_argument("--to", dest="end", type=int)
    args = p.parse_args(argv)
    from deltalake import DeltaTable

    reader = DeltaTable(args.path).load_cdf(starting_version=args.start, ending_version=args.end)
    import pyarrow as pa

    table = pa.table(reader.read_all())
    print(json.dumps(canon.document(table, engine="deltalake")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
