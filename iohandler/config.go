package iohandler

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/deltalite-go/deltalite/internal/editdist"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/jsonkeys"
	"github.com/deltalite-go/deltalite/merge"
)

// Write modes (Config.Mode, delta/mode).
const (
	ModeOverwrite       = "overwrite"
	ModeAppend          = "append"
	ModeError           = "error"
	ModeIgnore          = "ignore"
	ModeMerge           = "merge"
	ModeCreateOrReplace = "create_or_replace"
)

// Schema modes (Config.SchemaMode, delta/schema_mode); "" keeps the table's
// schema strictly.
const (
	SchemaModeOverwrite = "overwrite"
	SchemaModeMerge     = "merge"
)

var (
	modes       = []string{ModeOverwrite, ModeAppend, ModeError, ModeIgnore, ModeMerge, ModeCreateOrReplace}
	schemaModes = []string{SchemaModeOverwrite, SchemaModeMerge}
)

// EnvTableURI is the environment variable New reads the table URI from
// when Config.TableURI is empty (the seed's handler is a settings object
// that picks up TABLE_URI, unprefixed).
const EnvTableURI = "TABLE_URI"

// EnvSessionTimeZone is the environment variable New reads the session
// time zone from when Config.SessionTimeZone is empty (as the CLI's
// --session-time-zone defaults to it).
const EnvSessionTimeZone = "DELTALITE_SESSION_TIME_ZONE"

// Config is the handler's settings: H.json of the CLI, in the seed's
// snake_case. The zero value of every field but TableURI means its
// default (mode overwrite, strict schema).
type Config struct {
	// TableURI is the root under which each asset's table lives
	// ({TableURI}/{leaf}); EnvTableURI when empty.
	TableURI string `json:"table_uri"`
	// Mode is the default write mode: overwrite (default), append, error,
	// ignore, merge or create_or_replace.
	Mode string `json:"mode,omitempty"`
	// SchemaMode is "" (the source must fit the table), merge or overwrite.
	SchemaMode string `json:"schema_mode,omitempty"`
	// StorageOptions open the tables (keys as delta-rs spells them). Their
	// values never appear in an error or in output metadata.
	StorageOptions map[string]string `json:"storage_options,omitempty"`
	// TableConfig are table properties; delta/table_configuration is laid
	// over them per asset.
	TableConfig map[string]string `json:"table_config,omitempty"`
	// MergeConfig is the merge spec of mode merge, the JSON that `deltalite
	// merge --spec` takes (merge.ParseSpec): merge_type, predicate,
	// source_alias, target_alias, error_on_type_mismatch, operations.
	MergeConfig json.RawMessage `json:"merge_config,omitempty"`
	// MergeOptions is MergeConfig for Go callers; give one of the two.
	MergeOptions *merge.Options `json:"-"`
	// WriterProperties are the data files' settings; per asset,
	// delta/writer_properties replaces them.
	WriterProperties *WriterProperties `json:"writer_properties,omitempty"`
	// CommitProperties go into each commit; per asset,
	// delta/commit_properties replaces them.
	CommitProperties *CommitProperties `json:"commit_properties,omitempty"`
	// Engine holds the engine's budget knobs for writes, merges and reads.
	Engine *EngineSettings `json:"engine,omitempty"`
	// SessionTimeZone is the time zone every write, merge and read of the
	// handler reads a TIMESTAMP in, as Spark's spark.sql.session.timeZone:
	// for partition predicates and the tables' generated columns and CHECK
	// constraints (CAST(ts AS DATE), hour(ts), ...). A region
	// ("America/New_York"), "UTC", "Z" or an offset ("+05:30");
	// EnvSessionTimeZone when empty, else UTC.
	SessionTimeZone string `json:"session_time_zone,omitempty"`
}

// WriterProperties are the settings of the data files a write makes.
// Settings of the seed's WriterProperties this engine cannot honour
// (row group and page sizes, compression levels, per-column settings)
// are refused by name rather than ignored.
type WriterProperties struct {
	// Compression is snappy (default), zstd, gzip, lz4, brotli or none,
	// case-insensitive (the seed's "ZSTD" works). Merges write snappy and
	// refuse another codec.
	Compression string `json:"compression,omitempty"`
	// TargetFileSize is the data files' target size in bytes (default
	// the table's delta.targetFileSize, else 100 MiB).
	TargetFileSize int64 `json:"target_file_size,omitempty"`
	// StatisticsColumns are the columns whose min/max statistics data files
	// carry: the table property delta.dataSkippingStatsColumns, applied as
	// table configuration (at creation, or by a metadata commit).
	StatisticsColumns []string `json:"statistics_columns,omitempty"`
}

// CommitProperties go into the commits a write makes.
type CommitProperties struct {
	// CustomMetadata are extra top-level commitInfo keys.
	CustomMetadata map[string]any `json:"custom_metadata,omitempty"`
	// MaxCommitRetries bounds retries after a lost commit race (default
	// 15).
	MaxCommitRetries *int `json:"max_commit_retries,omitempty"`
	// AppTransactions make a write idempotent: a write whose app id and
	// version the table has seen is skipped. At most one.
	AppTransactions []AppTransaction `json:"app_transactions,omitempty"`
}

// AppTransaction is one application transaction (Delta's txn action).
type AppTransaction struct {
	AppID   string `json:"app_id"`
	Version int64  `json:"version"`
}

// EngineSettings are the engine's budget knobs; zero means the engine's
// default for each.
type EngineSettings struct {
	// MaxBufferedBytes bounds what a merge buffers (merge.Options).
	MaxBufferedBytes int64 `json:"max_buffered_bytes,omitempty"`
	// MaxParallelFiles is how many files a merge reads at once.
	MaxParallelFiles int `json:"max_parallel_files,omitempty"`
	// MaxSourceBytes refuses a merge source larger than this (-1: no limit).
	MaxSourceBytes int64 `json:"max_source_bytes,omitempty"`
	// ReadBatchSize is the rows per batch of reads and merges.
	ReadBatchSize int `json:"read_batch_size,omitempty"`
	// ReadParallelism is how many files a read decodes at once.
	ReadParallelism int `json:"read_parallelism,omitempty"`
}

// unsupportedWriterKeys are the seed's WriterProperties fields this engine
// cannot honour: refused by name, not ignored.
var unsupportedWriterKeys = []string{"compression_level", "data_page_size_limit", "dictionary_page_size_limit",
	"data_page_row_count_limit", "write_batch_size", "max_row_group_size", "statistics_truncate_length",
	"default_column_properties", "column_properties", "statistics_enabled", "bloom_filter_properties"}

// unsupportedCommitKeys are the seed's CommitProperties fields this engine
// cannot honour.
var unsupportedCommitKeys = []string{"post_commithook_properties"}

// LoadConfig reads H.json. Unknown keys are errors naming the key (and
// the closest known one); malformed JSON names the line and column.
func LoadConfig(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, errs.Wrap(errs.InvalidArgument, path, err, "reading the handler config")
	}
	var c Config
	if err := decodeStrict(data, &c, path); err != nil {
		return Config{}, err
	}
	return c, nil
}

// decodeStrict decodes the JSON object data into dst (a pointer to a
// struct), refusing unknown keys at any depth of dst's structs; where names
// the document in errors.
func decodeStrict(data []byte, dst any, where string) error {
	var probe any
	if err := decodeJSON(data, &probe, where); err != nil {
		return err
	}
	if err := checkKeys(probe, reflect.TypeOf(dst).Elem(), ""); err != nil {
		return errs.New(errs.InvalidArgument, "", "%s: %v", where, err)
	}
	return decodeJSON(data, dst, where)
}

// decodeJSON decodes data into dst; errors name where and, for malformed
// JSON, the line and column, or a key given twice.
func decodeJSON(data []byte, dst any, where string) error {
	if err := jsonkeys.Unique(data); err != nil {
		return errs.Wrap(errs.InvalidArgument, "", err, "%s", where)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	err := dec.Decode(dst)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			return errs.New(errs.InvalidArgument, "", "%s: %s: unexpected data after the JSON value", where, lineCol(data, dec.InputOffset()))
		}
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return errs.New(errs.InvalidArgument, "", "%s: %s: malformed JSON: %v", where, lineCol(data, syn.Offset-1), syn)
	case errors.As(err, &typ):
		return errs.New(errs.InvalidArgument, "", "%s: %s: a JSON %s where %s was expected", where, typ.Field, typ.Value, typ.Type)
	case errors.Is(err, io.EOF):
		return errs.New(errs.InvalidArgument, "", "%s: empty; give a JSON object", where)
	}
	return errs.Wrap(errs.InvalidArgument, "", err, "%s", where)
}

func lineCol(data []byte, off int64) string {
	at := min(max(int(off), 0), len(data))
	line := 1 + bytes.Count(data[:at], []byte("\n"))
	col := at - bytes.LastIndexByte(data[:at], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// checkKeys refuses object keys of v that t (a struct type, through
// pointers) has no JSON field for, naming the key's path.
func checkKeys(v any, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	obj, ok := v.(map[string]any)
	if !ok || t.Kind() != reflect.Struct {
		return nil
	}
	fields := map[string]reflect.Type{}
	var known []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		fields[name] = f.Type
		known = append(known, name)
	}
	var unsupported []string
	switch t {
	case reflect.TypeFor[WriterProperties]():
		unsupported = unsupportedWriterKeys
	case reflect.TypeFor[CommitProperties]():
		unsupported = unsupportedCommitKeys
	}
	for _, k := range sortedKeys(obj) {
		p := joinPath(path, k)
		ft, ok := fields[k]
		switch {
		case ok:
			if err := checkKeys(obj[k], ft, p); err != nil {
				return err
			}
			if ft.Kind() == reflect.Slice {
				if list, isList := obj[k].([]any); isList {
					for i, item := range list {
						if err := checkKeys(item, ft.Elem(), fmt.Sprintf("%s[%d]", p, i)); err != nil {
							return err
						}
					}
				}
			}
		case slices.Contains(unsupported, k):
			return fmt.Errorf("%s: not supported by this engine (supported: %s); remove it", p, strings.Join(known, ", "))
		default:
			return unknownKey(p, k, known)
		}
	}
	return nil
}

// unknownKey is the error for key k at path p, suggesting the closest of
// known.
func unknownKey(p, k string, known []string) error {
	if best := closest(k, known); best != "" {
		return fmt.Errorf("%s: unknown key; did you mean %q? (known: %s)", p, best, strings.Join(known, ", "))
	}
	return fmt.Errorf("%s: unknown key (known: %s)", p, strings.Join(known, ", "))
}

// closest is the name of known nearest to s by edit distance, or "" when
// none is near.
func closest(s string, known []string) string {
	best, bestD := "", max(3, len(s)/3)+1
	for _, k := range known {
		if d := editdist.Distance(strings.ToLower(s), k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func joinPath(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// checkMode validates a write mode; what names where it came from.
func checkMode(m, what string) error {
	if !slices.Contains(modes, m) {
		return fmt.Errorf("%s: unknown mode %q (want %s)", what, m, quoteList(modes))
	}
	return nil
}

// checkSchemaMode validates a schema mode ("" allowed).
func checkSchemaMode(m, what string) error {
	if m != "" && !slices.Contains(schemaModes, m) {
		return fmt.Errorf("%s: unknown schema mode %q (want %s, or leave it out)", what, m, quoteList(schemaModes))
	}
	return nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// check validates writer properties; what names where they came from.
func (w *WriterProperties) check(what string) error {
	if w == nil {
		return nil
	}
	if w.TargetFileSize < 0 {
		return fmt.Errorf("%s.target_file_size: %d is negative", what, w.TargetFileSize)
	}
	for i, c := range w.StatisticsColumns {
		if strings.TrimSpace(c) == "" {
			return fmt.Errorf("%s.statistics_columns[%d]: empty column name", what, i)
		}
	}
	return nil
}

// check validates commit properties; what names where they came from.
func (c *CommitProperties) check(what string) error {
	if c == nil {
		return nil
	}
	if c.MaxCommitRetries != nil && *c.MaxCommitRetries < 0 {
		return fmt.Errorf("%s.max_commit_retries: %d is negative", what, *c.MaxCommitRetries)
	}
	if len(c.AppTransactions) > 1 {
		return fmt.Errorf("%s.app_transactions: %d given; this engine records one per commit", what, len(c.AppTransactions))
	}
	for i, a := range c.AppTransactions {
		if strings.TrimSpace(a.AppID) == "" {
			return fmt.Errorf("%s.app_transactions[%d].app_id: empty", what, i)
		}
		if a.Version < 0 {
			return fmt.Errorf("%s.app_transactions[%d].version: %d is negative", what, i, a.Version)
		}
	}
	return nil
}

// check validates engine settings.
func (e *EngineSettings) check() error {
	if e == nil {
		return nil
	}
	switch {
	case e.MaxBufferedBytes < 0:
		return fmt.Errorf("engine.max_buffered_bytes: %d is negative", e.MaxBufferedBytes)
	case e.MaxParallelFiles < 0:
		return fmt.Errorf("engine.max_parallel_files: %d is negative", e.MaxParallelFiles)
	case e.MaxSourceBytes < merge.NoSourceLimit:
		return fmt.Errorf("engine.max_source_bytes: %d (want -1 for no limit, 0 for the default, or a size)", e.MaxSourceBytes)
	case e.ReadBatchSize < 0:
		return fmt.Errorf("engine.read_batch_size: %d is negative", e.ReadBatchSize)
	case e.ReadParallelism < 0:
		return fmt.Errorf("engine.read_parallelism: %d is negative", e.ReadParallelism)
	}
	return nil
}
