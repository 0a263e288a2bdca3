#!/usr/bin/env bash
# One command for the write benchmark: builds this engine's programs, then
# runs bench/cmd/writebench, which generates the Arrow input once (kept in
# bench/out/write), has delta-rs write_deltalake and deltalite.Write stream it
# into new tables (unpartitioned and partitioned), and writes
# bench/out/write/results.md and results.json.
#
#   bench/write.sh [--gib 1] [--reps 3] [--cases plain,partitioned] [other writebench flags]
#   bench/out/bin/writebench -h      # every flag
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=lib.sh
source bench/lib.sh
bench_setup bench/write.sh dlops writebench
BENCH_COMMAND="bench/write.sh $*" exec bench/out/bin/writebench -python "$bench_python" "$@"
