#!/usr/bin/env bash
# One command for the upsert benchmark: builds this engine's programs, then
# runs bench/cmd/upsertbench, which generates the tables once (kept in
# bench/out/upsert while their shape is unchanged), runs delta-rs MERGE and
# deltalite's upsert on copies of each, and writes bench/out/upsert/results.md,
# results.json and upsert.svg.
#
#   bench/upsert.sh [--sizes 62500,250000,1000000] [--reps N] [--payload 4500] [other upsertbench flags]
#   bench/out/bin/upsertbench -h      # every flag
set -euo pipefail
cd "$(dirname "$0")/.."

python=.venv/bin/python
if ! "$python" -c 'import deltalake, pyarrow, duckdb, numpy' 2>/dev/null; then
	echo "bench/upsert.sh: $python cannot import deltalake, pyarrow, duckdb and numpy; run scripts/setup-test-env.sh first" >&2
	exit 1
fi
mkdir -p bench/out/bin
for cmd in dlops upsertbench; do
	go build -o "bench/out/bin/$cmd" "./bench/cmd/$cmd"
done
BENCH_COMMAND="bench/upsert.sh $*" exec bench/out/bin/upsertbench -python "$python" "$@"
