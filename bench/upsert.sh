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
# shellcheck source=lib.sh
source bench/lib.sh
bench_setup bench/upsert.sh dlops upsertbench
bench_rust_venv bench/upsert.sh "$@"
BENCH_COMMAND="bench/upsert.sh $*" exec bench/out/bin/upsertbench -python "$bench_python" ${bench_rust_python:+-rust-python "$bench_rust_python"} "$@"
