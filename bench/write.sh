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

python=.venv/bin/python
if ! "$python" -c 'import deltalake, pyarrow, duckdb, numpy' 2>/dev/null; then
	echo "bench/write.sh: $python cannot import deltalake, pyarrow, duckdb and numpy; run scripts/setup-test-env.sh first" >&2
	exit 1
fi
mkdir -p bench/out/bin
for cmd in dlops writebench; do
	go build -o "bench/out/bin/$cmd" "./bench/cmd/$cmd"
done
BENCH_COMMAND="bench/write.sh $*" exec bench/out/bin/writebench -python "$python" "$@"
