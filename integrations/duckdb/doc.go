// Package duckdbio runs DuckDB SQL over Delta tables read by deltalite.
//
// RegisterDeltaScan adds the table functions delta_scan and delta_changes to a
// DuckDB connection:
//
//	SELECT day, sum(amount) FROM delta_scan('s3://bucket/sales', filter => 'day >= ''2026-01-01''') GROUP BY day
//
// delta_scan('uri' [, version => N] [, timestamp => '...'] [, filter => 'SQL'])
// opens the table with deltalite (any store, the storage options of the
// registration) and plans its files. The files DuckDB's own Parquet reader
// reads exactly (a local table, columns of plain types, no deletion vector,
// every row known to match the filter) it reads itself, through a
// read_parquet per set of partition values that the plan writes (the
// partition values from the log, the columns by their physical names);
// deltalite's scan reads the others and streams their rows into DuckDB a
// vector at a time, the files spread over DuckDB's threads, so memory is
// bounded by the batch size and the threads, never by the table
// (ScanOptions.ArrowOnly: every file so). The columns
// DuckDB asks for are the only ones read from the Parquet files (projection
// pushdown), and deletion vectors, column mapping, partition values and
// type widening are the engine's scan's. DuckDB's C API does not hand a
// table function the query's WHERE clause, so file pruning takes the
// predicate as the filter argument (Spark SQL syntax, as deltalite's
// WithWhere): partition columns prune files exactly, data columns skip files
// by their statistics, and the rows read are filtered by it. Stats counts
// the files each scan read and skipped, and those DuckDB's reader read.
//
// delta_changes('uri', from_version => N | from_timestamp => '...'
// [, to_version => M | to_timestamp => '...'] [, filter => 'SQL']) reads the
// table's change data feed as deltalite's Table.Changes: the table's columns
// and _change_type, _commit_version, _commit_timestamp, with the same
// projection pushdown, filter and storage options.
//
// A Resource holds DuckDB settings (threads, memory limit, storage options)
// and hands out Sessions, one DuckDB connection each, to use from one
// goroutine. A Session loads tables as lazy Relations (SQL over delta_scan
// that runs only when executed); several relations of one session join on
// its connection. A relation's result streams into a Delta table through
// deltalite.Write (any mode) or deltalite.Merge, as Arrow record batches.
//
// The package needs cgo and the build tag duckdb_arrow (DuckDB's Arrow
// interface): go build -tags duckdb_arrow. The core module stays cgo-free.
package duckdbio
