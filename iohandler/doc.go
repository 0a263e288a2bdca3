// Package iohandler is the Delta IO handler: it stores an orchestrator's
// asset outputs as Delta tables and loads them back, usable from any
// orchestrator (a Go runtime such as package asset, Temporal activities,
// cron, or others through `deltalite asset`). It is the Go counterpart of
// the rivers DeltaIOHandler: the same settings, per-asset metadata keys,
// modes, merge types and partition predicates, on this engine, without
// the places where that handler loses data (see "Differences").
//
// # Settings
//
// A Handler is built by New from a Config (H.json of the CLI, snake_case
// as the seed): table_uri (from the TABLE_URI environment variable when
// empty), mode (overwrite by default, append, error, ignore, merge,
// create_or_replace), schema_mode (merge, overwrite), storage_options,
// table_config, merge_config (the spec of `deltalite merge --spec`:
// merge_type, predicate, aliases, operations, error_on_type_mismatch),
// writer_properties (compression, target_file_size, statistics_columns),
// commit_properties (custom_metadata, max_commit_retries,
// app_transactions) and engine (budget knobs). Everything is checked
// before any I/O: an unknown mode, schema mode, merge type or key is an
// error naming it; settings of the seed this engine cannot honour (row
// group sizes, compression levels, ...) are refused by name.
//
// # Per-asset metadata
//
// All values are strings: delta/mode, delta/schema_mode,
// delta/partition_expr (a column, or a JSON object dimension -> column),
// delta/cluster_by (the clustering columns of a table the handler creates,
// comma-separated: a liquid-clustered table; not with delta/partition_expr),
// delta/root_name (the table's directory, default the asset name),
// delta/table_configuration (JSON, laid over table_config),
// delta/writer_properties and delta/commit_properties (JSON, replacing the
// handler's), delta/merge_predicate, delta/columns (JSON list, reads) and
// delta/version (reads). A bad value is an error naming the key. Any other
// key under delta/ is refused as a likely typo (keys outside delta/ are
// left to others).
//
// An asset's table is {table_uri}/{leaf} (AssetTableURI); a leaf holding
// "..", a path separator or a URL metacharacter is refused.
//
// # Values
//
// HandleOutput and LoadInput / Load move arrow.Table, arrow.RecordBatch,
// array.RecordReader (written streamed, never collected) and slices of Go
// structs ([]S or []*S; columns from exported fields and `delta:"name"`
// tags). Other types plug in with RegisterTypeHandler (the DuckDB and
// Spark integrations): the handler resolves the write or read into a
// WriteRequest or ReadRequest and the type handler only moves data. An
// unsupported type is an error listing the supported ones.
//
// # Output metadata
//
// Every write returns delta/table_uri (no userinfo or secret), delta/mode,
// delta/num_rows, delta/table_num_rows, delta/size_bytes,
// delta/write_duration_s, delta/version, delta/schema (Delta's schema
// JSON), delta/skipped, and for merges delta/num_output_rows and
// delta/merge_stats (JSON with the MERGE metric names).
//
// # Partitions
//
// With a partitions definition and delta/partition_expr, the table is
// partitioned by the expression's columns, and a run's keys resolve to a
// predicate (package partitions; typed against the table's columns when
// the table exists: a date column compares with DATE literals). With keys:
//
//   - overwrite replaces only the keys' partitions (a replace-where);
//     rows outside them are refused and nothing is written;
//   - append appends; error fails when the table exists;
//   - ignore skips when the keys' partitions already hold rows, and
//     writes (appends) otherwise: one commit that decides and appends
//     (write.Options.IgnoreWhere), so concurrent runs of one empty
//     partition write it once and the others skip;
//   - merge is scoped to the partitions: their predicate, on the target,
//     is ANDed into the ON condition and into every NOT MATCHED BY SOURCE
//     clause, so no row of another partition is matched, updated or
//     deleted, and a source row outside the keys is refused (it could
//     only be inserted into a partition the run does not own);
//   - create_or_replace is refused (it replaces every partition): use
//     overwrite, or overwrite with schema_mode overwrite without a key.
//
// Reads of keys push the predicate into the scan; delta/columns may leave
// the partition column out and the rows are still filtered. A key for an
// unpartitioned asset, or a keyed write into an unpartitioned table, is
// an error. PartitionPredicate and PartitionFilters give the seed's
// string forms; TablePartitionPredicate and TablePartitionFilters type
// them against the asset's table, as the handler's own writes and reads
// do.
//
// # Differences from the Python handler
//
//   - With a key, ignore decides per partition (rivers skips whenever the
//     table exists, so new partitions are never written), merge is scoped
//     to the partition (rivers' replace_delete_unmatched on one key
//     deletes every other partition's rows), and create_or_replace is
//     refused (rivers wipes every partition, in two commits).
//   - create_or_replace without a key is one commit.
//   - Partition bounds are typed against the column when the table exists
//     (rivers compares strings in the key format).
//   - A partitioned asset written without a key still gets a partitioned
//     table (rivers creates an unpartitioned one).
//   - delta/columns may project away the partition column of a keyed read.
//   - delta/num_rows is the rows this write wrote (a merge: rows inserted
//     and updated); rivers reports the whole table's there, which
//     delta/table_num_rows holds here.
//   - An ignore that skips says so (delta/skipped) and reports num_rows 0.
//   - Modes are validated when the handler is built and per asset (rivers
//     passes an unknown mode on to the engine).
//   - A merge into a missing table creates it in one commit from the rows
//     its insert clauses insert (rivers fails on Arrow, creates on Spark).
//   - schema_mode merge applies to merges (rivers drops new columns).
//   - Table configuration given after the table was created is applied
//     with a metadata commit before the write (rivers ignores it).
//   - Unknown delta/ metadata keys are refused.
//
// Two consequences worth knowing: the metadata commit that applies a new
// table configuration stands even when the write after it fails (or an
// ignore whose partition a concurrent run wrote meanwhile skips); and a
// merge into a missing table that inserts nothing creates no table (its
// metadata reports version -1).
package iohandler
