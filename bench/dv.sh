#!/usr/bin/env bash
# One command for the deletion vector benchmark (issue 26): builds this
# engine's programs, then runs bench/cmd/upsertbench -suite dv, which
# generates the upsert benchmark's tables and batches (kept in bench/out/dv
# while their shape is unchanged) and measures, per batch fraction of a
# partition, this engine's upsert and DELETE with deletion vectors against
# the same copy-on-write, the Rust deltalite's upsert, delta-rs MERGE and
# delta-rs DELETE, and a full scan after ten DV upserts against one after
# ten copy-on-write upserts. It writes bench/out/dv/results-dv.md and
# results-dv.json.
#
# The Rust deltalite runs from bench/out/venv-deltalite, made on first use as
# bench/upsert.sh makes it (CPython >= 3.12, bench/lib.sh); pass
# -rust-python '' to leave that engine out.
#
#   bench/dv.sh [--sizes 1000000] [--payload 1000] [--fractions 0.001,0.01,0.1] [--reps N] [other upsertbench flags]
#   bench/dv.sh --sizes 20000 --payload 200 -file-rows 2000 -scan-upserts 3 -work /tmp/dv-small --drop-caches=false   # harness check
#   bench/out/bin/upsertbench -h      # every flag
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=lib.sh
source bench/lib.sh
bench_setup bench/dv.sh dlops dlbench upsertbench
bench_rust_venv bench/dv.sh "$@"
go build -o bench/out/bin/deltalite ./cmd/deltalite
BENCH_COMMAND="bench/dv.sh $*" exec bench/out/bin/upsertbench -suite dv -work bench/out/dv -python "$bench_python" \
	${bench_rust_python:+-rust-python "$bench_rust_python"} "$@"
