#!/usr/bin/env bash
# The DuckDB benchmark: one aggregate over a generated Delta table, read by
# delta_scan (deltalite's scan streaming into DuckDB) and by DuckDB's own
# read_parquet of the same data files; wall time and peak RSS of each, each
# in a fresh process. The table is kept between runs (per row count).
#
#   integrations/duckdb/bench/run.sh [ROWS] [duckbench flags]
#   integrations/duckdb/bench/run.sh 10000000 -threads 2
set -euo pipefail
cd "$(dirname "$0")/.."

rows=${1:-10000000}
shift || true
out=bench/out
mkdir -p "$out"
go build -tags duckdb_arrow -o "$out/duckbench" ./bench/duckbench
table="$out/table-$rows"
"$out/duckbench" -table "$table" -rows "$rows" -gen
echo "table: $table ($rows rows, $(du -sh "$table" | cut -f1))"
for mode in delta_scan read_parquet; do
	"$out/duckbench" -table "$table" -mode "$mode" "$@"
done
