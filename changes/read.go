package changes

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// Read returns the change rows of the versions opts selects, up to head's
// version, in commit order. The schema is head's (Spark's default for
// batch reads). Release the reader when done.
func Read(ctx context.Context, head *snapshot.Snapshot, opts Options) (array.RecordReader, error) {
	r, err := plan(ctx, head, opts)
	if err != nil {
		return nil, err
	}
	return scan.NewRecordReader(r.schema, r.rows(ctx)), nil
}

// Initial returns head's rows as the changes that made them: every live
// row an insert at head's version and commit time, as Spark's streaming
// change feed starts without a starting version. It is where an
// incremental reader with no version read yet starts; the table need not
// record its changes. Columns, Where, BatchSize and Stats apply as to
// Read; a range is refused.
func Initial(ctx context.Context, head *snapshot.Snapshot, opts Options) (array.RecordReader, error) {
	if opts.FromVersion != 0 || !opts.FromTimestamp.IsZero() || opts.ToVersion != nil || !opts.ToTimestamp.IsZero() {
		return nil, errs.New(errs.InvalidArgument, "", "the initial changes are those of the table's version: give no range")
	}
	r := &reading{head: head, opts: opts, start: head.Version(), end: head.Version()}
	if err := r.bindColumns(); err != nil {
		return nil, err
	}
	ts, err := head.CommitTimestamp(ctx)
	if err != nil {
		return nil, err
	}
	c := snapshot.LogCommit{Version: head.Version(), Timestamp: ts}
	return scan.NewRecordReader(r.schema, func(yield func(arrow.RecordBatch, error) bool) {
		r.count(func(s *Stats) { s.Commits++ })
		if files := head.Files(); len(files) > 0 {
			r.readPart(ctx, c, part{files: files, kind: Insert}, yield)
		}
	}), nil
}

// Enabled reports whether a table of metadata md records its changes.
func Enabled(md *protocol.Metadata) bool { return enabled(md) }

// count applies add to the read's stats, when they are asked for.
func (r *reading) count(add func(*Stats)) {
	if r.opts.Stats != nil {
		add(r.opts.Stats)
	}
}

// reading is a resolved read: the range, the output and the sources.
type reading struct {
	head       *snapshot.Snapshot
	start, end int64 // end < start: nothing to read
	opts       Options
	out        []outColumn
	schema     *arrow.Schema
	tableCols  []string       // the table columns the scans read, in order
	table      source         // the table's schema
	withType   source         // the table's schema and _change_type: change data files
	tsType     arrow.DataType // of _commit_timestamp
}

// outColumn is one output column: a table column (index in tableCols) or a
// change column.
type outColumn struct {
	name  string
	table int // -1 for a change column
}

func plan(ctx context.Context, head *snapshot.Snapshot, opts Options) (*reading, error) {
	r := &reading{head: head, opts: opts}
	if err := r.resolveRange(ctx); err != nil {
		return nil, err
	}
	if err := r.bindColumns(); err != nil {
		return nil, err
	}
	if r.end < r.start {
		return r, nil
	}
	start := head
	if r.start != head.Version() {
		var err error
		if start, err = snapshot.LoadVersion(ctx, head.Store(), r.start); err != nil {
			return nil, err
		}
	}
	if !enabled(start.Metadata()) {
		return nil, r.notRecorded(r.start)
	}
	return r, nil
}

// resolveRange turns the options into versions, refusing what Spark
// refuses with its reasons.
func (r *reading) resolveRange(ctx context.Context) error {
	o, latest := r.opts, r.head.Version()
	if !o.FromTimestamp.IsZero() && o.FromVersion != 0 {
		return errs.New(errs.InvalidArgument, "", "give the start of the changes as a version or a timestamp, not both (from version %d, from timestamp %s)",
			o.FromVersion, o.FromTimestamp.UTC().Format(time.RFC3339Nano))
	}
	if !o.ToTimestamp.IsZero() && o.ToVersion != nil {
		return errs.New(errs.InvalidArgument, "", "give the end of the changes as a version or a timestamp, not both (to version %d, to timestamp %s)",
			*o.ToVersion, o.ToTimestamp.UTC().Format(time.RFC3339Nano))
	}
	if o.FromVersion < 0 {
		return errs.New(errs.InvalidArgument, "", "start version %d of the changes is negative: versions start at 0", o.FromVersion)
	}
	if o.ToVersion != nil && *o.ToVersion < 0 {
		return errs.New(errs.InvalidArgument, "", "end version %d of the changes is negative: versions start at 0", *o.ToVersion)
	}
	r.start, r.end = o.FromVersion, latest
	var err error
	if !o.FromTimestamp.IsZero() {
		if r.start, err = r.head.VersionFrom(ctx, o.FromTimestamp); err != nil {
			return err
		}
	}
	if r.start > latest {
		return errs.New(errs.InvalidArgument, r.head.Store().URL(),
			"start version %d of the changes exceeds the latest table version %d: start at %d or before", r.start, latest, latest)
	}
	switch {
	case !o.ToTimestamp.IsZero():
		if r.end, err = r.head.VersionAt(ctx, o.ToTimestamp); err != nil {
			return err
		}
		if !o.FromTimestamp.IsZero() {
			if o.FromTimestamp.After(o.ToTimestamp) {
				return r.invalidRange()
			}
			if r.end == r.start-1 { // both between the same two commits: no change
				return nil
			}
		}
	case o.ToVersion != nil:
		r.end = min(*o.ToVersion, latest)
		if *o.ToVersion < r.start {
			r.end = *o.ToVersion
		}
	}
	if r.end < r.start {
		return r.invalidRange()
	}
	return nil
}

func (r *reading) invalidRange() error {
	return errs.New(errs.InvalidArgument, "", "the range of changes from version %d to version %d is invalid: the end cannot be before the start", r.start, r.end)
}

// notRecorded is Spark's DELTA_MISSING_CHANGE_DATA for version v.
func (r *reading) notRecorded(v int64) error {
	return errs.New(errs.InvalidArgument, r.head.Store().URL(),
		"cannot read the changes of versions %d to %d: change data was not recorded for version %d. If the change data feed is enabled on this table, "+
			"see its history for the version that enabled it and start there; otherwise enable it (table property %s=true) to record changes from then on",
		r.start, r.end, v, protocol.PropEnableChangeDataFeed)
}

// enabled reports whether md records change data.
func enabled(md *protocol.Metadata) bool {
	if md == nil {
		return false
	}
	for _, k := range []string{protocol.PropEnableChangeDataFeed, protocol.PropEnableChangeDataCapture} {
		if strings.EqualFold(md.Configuration[k], "true") {
			return true
		}
	}
	return false
}

// bindColumns checks the projection and the predicate against the schema
// and builds the output schema.
func (r *reading) bindColumns() error {
	sc := r.head.Schema()
	if sc == nil {
		return errs.New(errs.CorruptTable, "", "table has no schema")
	}
	for _, f := range sc.Fields {
		if isChangeColumn(f.Name) {
			return errs.New(errs.UnsupportedTable, r.head.Store().URL(),
				"the table has a column %q, a name the change data feed reserves: rename it to read the changes", f.Name)
		}
	}
	r.table = source{Snapshot: r.head, sc: sc}
	typed := *sc
	typed.Fields = append(slices.Clone(sc.Fields), &schema.Field{Name: ChangeTypeColumn, Type: &schema.Primitive{Name: schema.String}, Nullable: true})
	r.withType = source{Snapshot: r.head, sc: &typed}
	if strings.TrimSpace(r.opts.Where) != "" {
		sess, err := expr.NewSession(r.opts.SessionTimeZone)
		if err != nil {
			return errs.Wrap(errs.InvalidArgument, "", err, "changes SessionTimeZone")
		}
		if _, err := sess.ParsePredicate(r.opts.Where, sc); err != nil {
			return errs.Wrap(errs.InvalidArgument, "", err, "changes predicate %q (it may name table columns, not the change columns)", r.opts.Where)
		}
	}
	names := r.opts.Columns
	if names == nil {
		for _, f := range sc.Fields {
			names = append(names, f.Name)
		}
		names = append(names, ChangeTypeColumn, CommitVersionColumn, CommitTimestampColumn)
	}
	seen := map[string]bool{}
	for _, name := range names {
		out := outColumn{name: name, table: -1}
		if f := sc.Field(name); f != nil {
			out = outColumn{name: f.Name, table: len(r.tableCols)}
			r.tableCols = append(r.tableCols, f.Name)
		} else if !isChangeColumn(name) {
			return errs.New(errs.InvalidArgument, "", "no column %q in the changes (columns: %s)", name, strings.Join(allColumns(sc), ", "))
		}
		if seen[out.name] {
			return errs.New(errs.InvalidArgument, "", "column %q selected twice", out.name)
		}
		seen[out.name] = true
		r.out = append(r.out, out)
	}
	tableSchema, err := scan.New(r.table, scan.WithColumns(r.tableCols...)).Schema()
	if err != nil {
		return err
	}
	r.tsType, _ = schema.ArrowType(&schema.Primitive{Name: schema.Timestamp}, schema.ArrowOptions{})
	fields := make([]arrow.Field, len(r.out))
	for i, oc := range r.out {
		switch oc.name {
		case ChangeTypeColumn:
			fields[i] = arrow.Field{Name: oc.name, Type: arrow.BinaryTypes.String, Nullable: true}
		case CommitVersionColumn:
			fields[i] = arrow.Field{Name: oc.name, Type: arrow.PrimitiveTypes.Int64, Nullable: true}
		case CommitTimestampColumn:
			fields[i] = arrow.Field{Name: oc.name, Type: r.tsType, Nullable: true}
		default:
			fields[i] = tableSchema.Field(oc.table)
		}
	}
	r.schema = arrow.NewSchema(fields, nil)
	return nil
}

func isChangeColumn(name string) bool {
	return name == ChangeTypeColumn || name == CommitVersionColumn || name == CommitTimestampColumn
}

func allColumns(sc *schema.Struct) []string {
	var out []string
	for _, f := range sc.Fields {
		out = append(out, fmt.Sprintf("%q", f.Name))
	}
	for _, n := range []string{ChangeTypeColumn, CommitVersionColumn, CommitTimestampColumn} {
		out = append(out, fmt.Sprintf("%q", n))
	}
	return out
}

// rows streams the change rows commit by commit, part by part.
func (r *reading) rows(ctx context.Context) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		if r.end < r.start {
			return
		}
		for c, err := range r.head.Commits(ctx, r.start, r.end) {
			if err != nil {
				yield(nil, err)
				return
			}
			r.count(func(s *Stats) { s.Commits++ })
			parts, err := r.parts(ctx, c)
			if err != nil {
				yield(nil, err)
				return
			}
			for _, p := range parts {
				if !r.readPart(ctx, c, p, yield) {
					return
				}
			}
		}
	}
}

// readPart yields the rows of one part of commit c; false when the
// consumer stopped or an error ended the sequence.
func (r *reading) readPart(ctx context.Context, c snapshot.LogCommit, p part, yield func(arrow.RecordBatch, error) bool) bool {
	src, cols := r.table, r.tableCols
	if p.kind == "" {
		src, cols = r.withType, append(slices.Clone(r.tableCols), ChangeTypeColumn)
	}
	src.version = c.Version
	opts := []scan.Option{scan.WithFiles(p.files...), scan.WithColumns(cols...)}
	if strings.TrimSpace(r.opts.Where) != "" {
		opts = append(opts, scan.WithWhere(r.opts.Where), scan.WithSessionTimeZone(r.opts.SessionTimeZone))
	}
	if r.opts.BatchSize > 0 {
		opts = append(opts, scan.WithBatchSize(r.opts.BatchSize))
	}
	if p.only != nil {
		opts = append(opts, rowsOnly(p.only))
	}
	s := scan.New(src, opts...)
	if r.opts.Stats != nil {
		e, err := s.Explain(ctx)
		if err != nil {
			return yield(nil, err) && false
		}
		r.count(func(st *Stats) {
			st.FilesRead += int64(len(e.Files))
			st.FilesSkipped += int64(len(e.Skipped))
			for _, f := range e.Files {
				st.BytesRead += f.Add.Size
			}
		})
	}
	_, batches, err := s.Records(ctx)
	if err != nil {
		return yield(nil, err) && false
	}
	for rec, err := range batches {
		if err != nil {
			yield(nil, r.missing(err, c.Version, p.kind == ""))
			return false
		}
		out, err := r.output(rec, p.kind, c)
		if err != nil {
			yield(nil, err)
			return false
		}
		r.count(func(st *Stats) { st.Rows += out.NumRows() })
		more := yield(out, nil)
		out.Release()
		if !more {
			return false
		}
	}
	return true
}

// missing names a file of the feed that is gone, likely vacuumed, and
// what to do.
func (r *reading) missing(err error, v int64, changeData bool) error {
	var e *errs.Error
	if !errors.Is(err, storage.ErrNotExist) || !errors.As(err, &e) {
		return err
	}
	what := "data file"
	if changeData {
		what = "change data file"
	}
	return &errs.Error{Kind: errs.NotFound, Path: e.Path, Err: storage.ErrNotExist, Msg: fmt.Sprintf(
		"the %s of version %d is missing: it was likely removed by VACUUM, version %d being older than the table's retention "+
			"(delta.deletedFileRetentionDuration); read the changes from a later version", what, v, v)}
}
