# Shared steps of the benchmark scripts (bench/write.sh, bench/merge.sh,
# bench/upsert.sh, bench/dv.sh); source it from the repository root.

# shellcheck source=../scripts/lib.sh
source scripts/lib.sh # DELTALITE_CACHE, where pip keeps its wheels

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

# bench_is_py312 PY succeeds when PY is a CPython 3.12 or newer.
bench_is_py312() { [[ -n "$1" ]] && "$1" -c 'import sys; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; }

# bench_find_py312 prints $BENCH_PYTHON312, else pyenv's newest 3.12 (or
# later line: 3.12 first, the line the package's abi3 wheels are built
# for), else python3.12/python3.13/python3 on PATH that is one.
bench_find_py312() {
	local c minor
	if [[ -n "${BENCH_PYTHON312:-}" ]]; then
		echo "$BENCH_PYTHON312"
		return
	fi
	if command -v pyenv >/dev/null; then
		for minor in 12 13 14 15; do
			for c in $(ls -d "$(pyenv root)/versions/3.$minor".*/bin/python3 2>/dev/null | sort -rV); do
				bench_is_py312 "$c" && echo "$c" && return
			done
		done
	fi
	for c in python3.12 python3.13 python3; do
		c="$(command -v "$c" 2>/dev/null)" || continue
		bench_is_py312 "$c" && echo "$c" && return
	done
	return 0
}

# bench_rust_venv NAME ARGS... sets bench_rust_python to the Python of the Rust
# deltalite engine (bench/py/rust_deltalite_bench.py). It needs CPython >=
# 3.12, so on first use it makes bench/out/venv-deltalite with the pins of
# bench/py/requirements-deltalite.txt (--no-deps) from bench_find_py312's
# interpreter, and reuses it while the pins and the interpreter stay the
# same. It does nothing when ARGS (the harness's) pass -rust-python.
bench_rust_venv() {
	local name=$1 arg
	shift
	for arg in "$@"; do
		if [[ $arg == -rust-python* || $arg == --rust-python* ]]; then
			return # the caller names its own interpreter, or none
		fi
	done
	local lock=bench/py/requirements-deltalite.txt venv=bench/out/venv-deltalite base want
	bench_rust_python="$venv/bin/python"
	base="$(bench_find_py312)"
	if ! bench_is_py312 "$base"; then
		echo "$name: the Rust deltalite engine needs CPython 3.12 or newer and none was found" \
			"${BENCH_PYTHON312:+(BENCH_PYTHON312=$BENCH_PYTHON312 is not one)}; install it (e.g. \`pyenv install 3.12\`)" \
			"or set BENCH_PYTHON312 to its python3, or pass -rust-python '' to leave that engine out" >&2
		exit 1
	fi
	want="$(sha256sum "$lock" | cut -d' ' -f1) $("$base" -c 'import sys; print(sys.version.split()[0])')"
	if [[ ! -x "$bench_rust_python" || "$(cat "$venv/.requirements" 2>/dev/null)" != "$want" ]]; then
		echo "$name: making $venv from $base with $lock" >&2
		rm -rf "$venv"
		"$base" -m venv "$venv"
		PIP_CACHE_DIR="$DELTALITE_CACHE/pip" "$bench_rust_python" -m pip install \
			--disable-pip-version-check --quiet --no-deps -r "$lock"
		"$bench_rust_python" -m pip check >&2
		echo "$want" >"$venv/.requirements"
	fi
}
