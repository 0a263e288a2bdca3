# Shared steps of the benchmark scripts (bench/write.sh, bench/merge.sh);
# source it from the repository root.

# bench_python is the Python with the peers the harnesses run.
bench_python=.venv/bin/python

# bench_setup NAME CMD... checks bench_python imports the peers (NAME is
# the calling script, for the message) and builds the Go programs CMD...
# into bench/out/bin.
bench_setup() {
	local name=$1 cmd
	shift
	if ! "$bench_python" -c 'import deltalake, pyarrow, duckdb, numpy' 2>/dev/null; then
		echo "$name: $bench_python cannot import deltalake, pyarrow, duckdb and numpy; run scripts/setup-test-env.sh first" >&2
		exit 1
	fi
	mkdir -p bench/out/bin
	for cmd in "$@"; do
		go build -o "bench/out/bin/$cmd" "./bench/cmd/$cmd"
	done
}
