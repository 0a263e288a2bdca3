"""Compacts a table with delta-rs (dt.optimize.compact) and prints the
metrics it returns, as JSON, so that Go tests can check that delta-rs
optimizes a table this engine optimized, and the other way round.

  optimize_table.py PATH [--target-size BYTES]
Prints delta-rs's metrics object (numFilesAdded, numFilesRemoved, ...).
"""

import argparse
import json

from deltalake import DeltaTable


def main():
    p = argparse.ArgumentParser()
    p.add_argument("path")
    p.add_argument("--target-size", type=int)
    a = p.parse_args()
    metrics = DeltaTable(a.path).optimize.compact(target_size=a.target_size)
    print(json.dumps(metrics))


if __name__ == "__main__":
    main()
