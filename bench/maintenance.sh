#!/usr/bin/env bash
# One command for the table maintenance benchmark: builds the deltalite
# command and the harness, then runs bench/cmd/maintbench, which generates
# tables of many small files (kept in bench/out/maintenance while their
# shape is unchanged) and runs the deltalite command's optimize and vacuum
# and delta-rs's optimize.compact(), optimize.z_order() and vacuum() on
# copies of each. It writes bench/out/maintenance/results.md and
# results.json.
#
#   bench/maintenance.sh [--gib 1] [--files 2000] [--partitions 10] [--reps 3] [--cases ...] [other maintbench flags]
#   bench/maintenance.sh -gib 0.01 -files 40 -partitions 4 -one-gib 0.01 -one-files 20 -budget-mib 1 -big-files 20 -reps 1 -work /tmp/maint-small   # harness check
#   bench/out/bin/maintbench -h      # every flag
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=lib.sh
source bench/lib.sh
bench_setup bench/maintenance.sh maintbench
go build -o bench/out/bin/deltalite ./cmd/deltalite
BENCH_COMMAND="bench/maintenance.sh $*" exec bench/out/bin/maintbench -python "$bench_python" -deltalite bench/out/bin/deltalite "$@"
