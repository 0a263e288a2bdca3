// Package partitions describes how an asset's data is split into partitions
// and turns a run's partition keys into the predicate and filters that
// select those partitions in a Delta table.
//
// A Definition is a time window schedule (Daily, Hourly, Weekly, Monthly,
// Cron, Interval), a fixed key list (Static), an open key list (Dynamic) or
// a product of named dimensions (Multi). A time window key is its window's
// start formatted with the definition's strftime format in the
// definition's time zone; a window is half-open, [start, end). A multi key
// is written "date=2024-01-02,region=us".
//
// Predicate and Filters take an Expr (the asset's delta/partition_expr: a
// column name, or a JSON object mapping each dimension to its column) and
// the keys of one run. Without a table schema they produce exactly the
// string forms the Python rivers handler produces (time bounds as strings
// in the key format), so tables shared with it select the same rows. With
// the schema, bounds are typed against the column: a DATE column compares
// with DATE literals, a TIMESTAMP column with the window's instants, an
// integer column with numbers; so a key format like "%Y-%m" is correct on
// a date column, where a string comparison is not.
package partitions
