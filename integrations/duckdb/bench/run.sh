#!/usr/bin/env bash
# The DuckDB benchmark: queries over generated Delta tables, read by
# delta_scan (deltalite plans the files, DuckDB's Parquet reader reads
# those it reads exactly), by delta_scan_arrow (every file read by
# deltalite's scan, handed to DuckDB as Arrow), by DuckDB's own
# read_parquet of the same data files, and by DuckDB's delta extension
# (delta-kernel-rs, from the duckdb-extension-delta wheel of .venv); each
# run a fresh process, the four alternating, REPS rounds; then the medians
# and the ratios (bench/summarize.py). The tables are kept between runs.
#
#   integrations/duckdb/bench/run.sh [ROWS] [PROWS] [REPS]
#   ROWS: the flat table (agg query), default 10000000
#   PROWS: the partitioned table (part and stats queries), default 28000000 (about 1 GiB)
#   THREADS=N sets DuckDB's threads in every mode.
set -euo pipefail
cd "$(dirname "$0")/.."

rows=${1:-10000000}
prows=${2:-28000000}
reps=${3:-3}
threads=${THREADS:-0}
out=bench/out
py=../../.venv/bin/python
mkdir -p "$out"
go build -tags duckdb_arrow -o "$out/duckbench" ./bench/duckbench
flat="$out/table-$rows"
part="$out/ptable-$prows"
"$out/duckbench" -table "$flat" -rows "$rows" -gen
"$out/duckbench" -table "$part" -rows "$prows" -gen -partitioned
echo "tables: $flat ($rows rows, $(du -shL "$flat" | cut -f1)), $part ($prows rows, $(du -shL "$part" | cut -f1))" >&2
results="$out/results-$(date +%Y%m%dT%H%M%S).ndjson"
for rep in $(seq "$reps"); do
	for spec in "agg $flat $rows" "part $part $prows" "stats $part $prows"; do
		read -r q table n <<<"$spec"
		sql=$("$out/duckbench" -print-query "$q" -rows "$n" | cut -f1)
		for mode in delta_scan delta_scan_arrow read_parquet delta_extension; do
			if [ "$mode" = delta_extension ]; then
				"$py" bench/ext_bench.py "$table" "$sql" --name "$q" --threads "$threads"
			else
				"$out/duckbench" -table "$table" -rows "$n" -query "$q" -mode "$mode" -threads "$threads"
			fi | tee -a "$results" >&2
		done
	done
done
python3 bench/summarize.py "$results"
