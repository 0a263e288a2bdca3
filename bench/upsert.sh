#!/usr/bin/env bash
# One command for the upsert benchmark: builds this engine's programs, then
# runs bench/cmd/upsertbench, which generates the tables once (kept in
# bench/out/upsert while their shape is unchanged), runs delta-rs MERGE, the
# Rust deltalite's upsert (PyPI `deltalite`) and this engine's upsert on copies
# of each, and writes bench/out/upsert/results.md, results.json and upsert.svg.
#
# The Rust deltalite needs CPython >= 3.12: on first use this script makes
# bench/out/venv-deltalite with the pins of bench/py/requirements-deltalite.txt
# from $BENCH_PYTHON312, else pyenv's newest 3.12 (or later line), else python3.12/python3.13
# on PATH, and reuses it while the pins and the interpreter stay the same.
#
#   bench/upsert.sh [--sizes 62500,250000,1000000] [--reps N] [--payload 4500] [other upsertbench flags]
#   bench/out/bin/upsertbench -h      # every flag
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=../scripts/lib.sh
source scripts/lib.sh # DELTALITE_CACHE, where pip keeps its wheels

python=.venv/bin/python
if ! "$python" -c 'import deltalake, pyarrow, duckdb, numpy' 2>/dev/null; then
	echo "bench/upsert.sh: $python cannot import deltalake, pyarrow, duckdb and numpy; run scripts/setup-test-env.sh first" >&2
	exit 1
fi

# The Rust deltalite's own environment.
rs_lock=bench/py/requirements-deltalite.txt
rs_venv=bench/out/venv-deltalite
rs_python="$rs_venv/bin/python"
is_py312() { [[ -n "$1" ]] && "$1" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; }
find_py312() {
	local c minor
	if [[ -n "${BENCH_PYTHON312:-}" ]]; then
		echo "$BENCH_PYTHON312"
		return
	fi
	if command -v pyenv >/dev/null; then
		# 3.12 first, the line the package's abi3 wheels are built for.
		for minor in 12 13 14 15; do
			for c in $(ls -d "$(pyenv root)/versions/3.$minor".*/bin/python3 2>/dev/null | sort -rV); do
				is_py312 "$c" && echo "$c" && return
			done
		done
	fi
	for c in python3.12 python3.13 python3; do
		c="$(command -v "$c" 2>/dev/null)" || continue
		is_py312 "$c" && echo "$c" && return
	done
	return 0
}
base312="$(find_py312)"
if ! is_py312 "$base312"; then
	echo "bench/upsert.sh: the Rust deltalite engine needs CPython 3.12 or newer and none was found" \
		"${BENCH_PYTHON312:+(BENCH_PYTHON312=$BENCH_PYTHON312 is not one)}; install it (e.g. \`pyenv install 3.12\`)" \
		"or set BENCH_PYTHON312 to its python3" >&2
	exit 1
fi
want="$(sha256sum "$rs_lock" | cut -d' ' -f1) $("$base312" -c 'import sys; print(sys.version.split()[0])')"
if [[ ! -x "$rs_python" || "$(cat "$rs_venv/.requirements" 2>/dev/null)" != "$want" ]]; then
	echo "bench/upsert.sh: making $rs_venv from $base312 with $rs_lock" >&2
	rm -rf "$rs_venv"
	"$base312" -m venv "$rs_venv"
	PIP_CACHE_DIR="$DELTALITE_CACHE/pip" "$rs_python" -m pip install \
		--disable-pip-version-check --quiet --no-deps -r "$rs_lock"
	"$rs_python" -m pip check >&2
	echo "$want" >"$rs_venv/.requirements"
fi

mkdir -p bench/out/bin
for cmd in dlops upsertbench; do
	go build -o "bench/out/bin/$cmd" "./bench/cmd/$cmd"
done
BENCH_COMMAND="bench/upsert.sh $*" exec bench/out/bin/upsertbench -python "$python" -rust-python "$rs_python" "$@"
