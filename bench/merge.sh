#!/usr/bin/env bash
# One command for the MERGE benchmark: builds this engine's programs, then
# runs bench/cmd/upsertbench -suite merge, which generates the upsert
# benchmark's tables and batches (kept in bench/out/merge while their shape
# is unchanged) and runs delta-rs MERGE / DELETE and this engine's (dlops
# merge / delete) on copies of each: an upsert MERGE, a conditional MERGE,
# the upsert on a table with more partitions than the batch touches, and a
# DELETE of one partition. It writes bench/out/merge/results.md and
# results.json.
#
#   bench/merge.sh [--sizes 62500,250000,1000000] [--reps N] [--payload 4500] [other upsertbench flags]
#   bench/merge.sh --sizes 2000 --reps 1 --payload 200 -file-rows 500 -work /tmp/mb-small --drop-caches=false   # harness check
#   bench/merge.sh -suite cdf --sizes 62500 --reps 1 -work /tmp/cdfb   # the change data feed's cost: WORK/results-cdf.md
#   bench/out/bin/upsertbench -h      # every flag
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=lib.sh
source bench/lib.sh
bench_setup bench/merge.sh dlops upsertbench
BENCH_COMMAND="bench/merge.sh $*" exec bench/out/bin/upsertbench -suite merge -work bench/out/merge -python "$bench_python" "$@"
