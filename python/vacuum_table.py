"""Vacuums a table with delta-rs and prints the files it deleted (or, with
--dry-run, would delete), as JSON, so that Go tests can compare delta-rs's
vacuum with this engine's and check that each works after the other.

  vacuum_table.py PATH [--retention-hours N] [--no-enforce-retention] [--dry-run] [--full]
Prints {"files": [...paths relative to the table root, sorted...]}.
Without --full delta-rs vacuums in its default (lite) mode.
"""

import argparse
import json

from deltalake import DeltaTable


def main():
    p = argparse.ArgumentParser()
    p.add_argument("path")
    p.add_argument("--retention-hours", type=int)
    p.add_argument("--no-enforce-retention", action="store_true")
    p.add_argument("--dry-run", action="store_true")
    p.add_argument("--full", action="store_true")
    a = p.parse_args()
    files = DeltaTable(a.path).vacuum(
        retention_hours=a.retention_hours,
        dry_run=a.dry_run,
        enforce_retention_duration=not a.no_enforce_retention,
        full=a.full,
    )
    print(json.dumps({"files": sorted(files)}))


if __name__ == "__main__":
    main()
