package write

import (
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// Mode says what a write does when the table exists (or not).
type Mode string

const (
	// ModeAppend adds rows; it creates the table when there is none.
	ModeAppend Mode = "append"
	// ModeOverwrite replaces the table's rows, or only those ReplaceWhere
	// selects; it creates the table when there is none.
	ModeOverwrite Mode = "overwrite"
	// ModeError fails with ErrTableExists when the table exists.
	ModeError Mode = "error"
	// ModeIgnore writes nothing when the table exists, or with
	// IgnoreWhere when it holds a row the predicate selects.
	ModeIgnore Mode = "ignore"
	// ModeCreateOrReplace replaces schema, partitioning, properties and
	// rows in one commit, keeping the history.
	ModeCreateOrReplace Mode = "create_or_replace"
)

// SchemaMode says how Write treats a source schema that differs from the
// table's.
type SchemaMode string

const (
	// SchemaStrict (the default) requires the source to fit the table.
	SchemaStrict SchemaMode = ""
	// SchemaMerge adds new source columns (nullable) and relaxes
	// nullability, in the same commit as the data; on a table with
	// delta.enableTypeWidening=true it also widens a column to a wider
	// source type (type widening, recorded in delta.typeChanges).
	SchemaMerge SchemaMode = "merge"
	// SchemaOverwrite replaces the schema; only with ModeOverwrite.
	SchemaOverwrite SchemaMode = "overwrite"
)

// Options configure a write. An empty Mode means ModeError, as in
// delta-rs's write_deltalake, so that nothing is changed by accident.
type Options struct {
	Mode       Mode
	SchemaMode SchemaMode
	// PartitionBy names partition columns for a new table (or a
	// create_or_replace); for an existing table it must match, if given.
	PartitionBy []string
	// ClusterBy names the clustering columns of a new table (or a
	// create_or_replace): a clustered table (liquid clustering), which
	// OPTIMIZE clusters by them; it excludes PartitionBy. For an existing
	// table it must match the table's clustering columns, if given.
	ClusterBy []string
	// ReplaceWhere limits an overwrite to the rows the SQL predicate
	// selects, e.g. `day = '2026-01-01'`. Written rows must satisfy it.
	ReplaceWhere string
	// IgnoreWhere narrows ModeIgnore to the rows the SQL predicate selects,
	// e.g. `day = '2026-01-01'`: the write is skipped when the table holds
	// such a row, else the source is appended (a missing table is
	// created). The decision and the append are one commit on the table
	// Run was handed, whose read set is the files the predicate may
	// select: when a concurrent commit adds such a file first, the write
	// decides again on the newer table, and skips. Concurrent ignores of
	// one predicate therefore write once. A concurrent blind append (mode
	// append) is not waited for: it is ordered before this write, as
	// Delta's WriteSerializable isolation orders it.
	IgnoreWhere string
	// Properties are table properties for a new table (delta.* and user
	// keys), checked as Delta checks them; a property that needs a table
	// feature adds it, or is refused when this engine cannot write the
	// feature. For an existing table they must be the table's own.
	Properties map[string]string
	// Name and Description of a new table.
	Name, Description string
	// TargetFileSize overrides delta.targetFileSize (bytes).
	TargetFileSize int64
	// Compression of data files: "snappy" (default) or "zstd" (also gzip, lz4, none).
	Compression string
	// CommitMaxRetries bounds retries after lost commit races (default 15).
	CommitMaxRetries int
	// CommitMetadata is merged into commitInfo.
	CommitMetadata map[string]any
	// SessionTimeZone is the time zone this operation reads a TIMESTAMP
	// in, as Spark's spark.sql.session.timeZone: ReplaceWhere and IgnoreWhere, and
	// the table's generated columns and CHECK constraints (CAST(ts AS
	// DATE), hour(ts), date_format(ts, ...), from_unixtime, ...). A region
	// ("America/New_York"), "UTC", "Z" or an offset ("+05:30"); "" is UTC,
	// the default (a table does not record its writers' zone). Give the
	// zone the table's Spark writers run with.
	SessionTimeZone string
	// AppID and AppVersion make the write idempotent: a write whose
	// (AppID, AppVersion) the table has already seen is skipped.
	AppID      string
	AppVersion int64
	// Allocator for Arrow and Parquet buffers (default arrowmem.Default,
	// which reuses freed buffers).
	Allocator memory.Allocator
	// StorageOptions are the object-store settings deltalite.Write opens
	// the table's URI with, keyed as delta-rs spells them (AWS_REGION,
	// AZURE_STORAGE_ACCOUNT_NAME, ...); Store, when set, is used instead of
	// resolving the URI. Run is handed its table and ignores both.
	StorageOptions map[string]string
	Store          storage.Store
}

// Result reports a write.
type Result struct {
	Version      int64 // the version committed (or the current one when skipped)
	Created      bool  // the write created the table
	Skipped      bool  // nothing was written (ModeIgnore on an existing table, or an AppID/AppVersion already applied)
	FilesAdded   int
	FilesRemoved int
	RowsWritten  int64
	BytesWritten int64
	Warnings     []error // failures after the commit (checkpoint, log cleanup); the commit stands

	post *snapshot.Snapshot // the table as the write left it, until Run returns it
}

// newTable is the table a write in these options creates.
func (wo Options) newTable() op.NewTableOptions {
	return op.NewTableOptions{PartitionBy: wo.PartitionBy, ClusterBy: wo.ClusterBy, Properties: wo.Properties, Name: wo.Name, Description: wo.Description}
}
