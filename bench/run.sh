#!/usr/bin/env bash
# One command for the benchmark: builds this engine's benchmark programs,
# generates the tables once (kept while their shape is unchanged), then runs
# every case against delta-rs and writes bench/out/results.md.
#
#   bench/run.sh [gentables flags] [-- benchrun flags]
#   bench/run.sh -commits 20000 -files 200000 -wide-files 64 -- -reps 3
set -euo pipefail
cd "$(dirname "$0")/.."

invocation="bench/run.sh${*:+ $*}"
gen_args=()
run_args=()
while [ $# -gt 0 ]; do
	if [ "$1" = "--" ]; then
		shift
		run_args=("$@")
		break
	fi
	gen_args+=("$1")
	shift
done

python=.venv/bin/python
if ! "$python" -c 'import deltalake, pyarrow' 2>/dev/null; then
	echo "bench/run.sh: $python cannot import deltalake; run scripts/setup-test-env.sh first" >&2
	exit 1
fi

mkdir -p bench/out/bin
for cmd in dlbench gentables benchrun; do
	go build -o "bench/out/bin/$cmd" "./bench/cmd/$cmd"
done

bench/out/bin/gentables -out bench/out/tables ${gen_args[@]+"${gen_args[@]}"}
BENCH_COMMAND="$invocation" bench/out/bin/benchrun -tables bench/out/tables -python "$python" \
	-dlbench bench/out/bin/dlbench -out bench/out/results.md ${run_args[@]+"${run_args[@]}"}
