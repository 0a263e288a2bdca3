package scan

import (
	"context"
	"fmt"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// FileTask is one data file the scan reads.
type FileTask struct {
	Add *protocol.Add
	// Key is the object key of the data file in the Source's store.
	Key string
	// stats are the file's parsed statistics when predicates on data
	// columns needed them, nil otherwise.
	stats *stats.File

	// allMatch: the log proves every row satisfies the predicates, so
	// rows are not evaluated.
	allMatch bool
}

// AllRowsMatch reports whether the log proves that every row of the file
// satisfies the scan's predicates (by partition values and statistics), so
// that a reader of the file need not evaluate them; true when the scan has
// none.
func (t FileTask) AllRowsMatch() bool { return t.allMatch }

// SkippedFile is a live file the scan does not read, and why.
type SkippedFile struct {
	Add    *protocol.Add
	Key    string
	Reason string
}

// Explanation is a plan with the files it skipped.
type Explanation struct {
	Files   []FileTask
	Skipped []SkippedFile
}

// Plan returns the files the scan reads, in the order it reads them.
func (s *Scan) Plan(ctx context.Context) ([]FileTask, error) {
	e, err := s.Explain(ctx)
	if err != nil {
		return nil, err
	}
	return e.Files, nil
}

// Explain returns the files the scan reads and, for every other live file,
// the filter that excluded it.
func (s *Scan) Explain(ctx context.Context) (*Explanation, error) {
	b, err := s.bind()
	if err != nil {
		return nil, err
	}
	return b.plan(ctx)
}

// bound is a Scan resolved against its Source's schema.
type bound struct {
	*Scan
	sess       expr.Session // of WithSessionTimeZone: predicates and partition values are read in it
	sc         *schema.Struct
	mode       schema.Mode
	out        []outColumn // the selected columns, then those only predicates read
	visible    int         // how many of out are selected
	outSchema  *arrow.Schema
	evalSchema *arrow.Schema   // of every column in out, for predicates
	predStats  bool            // a predicate reads a data column: statistics help
	read       []*schema.Field // data columns read from files, output ones first
	readTypes  []arrow.DataType
	// preds are every predicate of the scan: those given bound, its SQL
	// (WithWhere) and its filters' (Filter.predicate), all decided and
	// evaluated by expr.
	preds []*expr.Bound
	// dictRead marks the read columns that may stay dictionaries
	// (WithDictionaries); nil when none may.
	dictRead []bool
}

// outColumn is one column of the output.
type outColumn struct {
	field     *schema.Field
	arrow     arrow.Field
	partition bool
	key       string     // partitionValues key
	read      int        // index in bound.read for data columns
	meta      metaColumn // RowIndexColumn, RowIDColumn, RowCommitVersionColumn
}

func (s *Scan) bind() (*bound, error) {
	if s.src == nil {
		return nil, errs.New(errs.InvalidArgument, "", "scan has no source")
	}
	sc := s.src.Schema()
	if sc == nil {
		return nil, errs.New(errs.CorruptTable, "", "table has no schema")
	}
	b := &bound{Scan: s, sc: sc, mode: s.src.ColumnMapping()}
	partCols := map[string]bool{}
	for _, name := range s.src.PartitionColumns() {
		f := sc.Field(name)
		if f == nil {
			return nil, errs.New(errs.CorruptTable, "", "partition column %q is not in the table schema", name)
		}
		partCols[f.Name] = true
	}
	fields := sc.Fields
	var metaAt map[int]string // metadata columns selected by name, by position in fields
	if s.columns != nil {
		fields = make([]*schema.Field, 0, len(s.columns))
		seen := map[string]bool{}
		for _, name := range s.columns {
			f := sc.Field(name)
			if f == nil && metaColumnNamed(name) != notMeta && !seen[name] {
				if metaAt == nil {
					metaAt = map[int]string{}
				}
				metaAt[len(fields)] = name
				seen[name] = true
				fields = append(fields, nil)
				continue
			}
			if f == nil {
				return nil, errs.New(errs.InvalidArgument, "", "no column %q in the table (columns: %s)", name, columnNames(sc))
			}
			if seen[f.Name] {
				return nil, errs.New(errs.InvalidArgument, "", "column %q selected twice", f.Name)
			}
			seen[f.Name] = true
			fields = append(fields, f)
		}
	}
	readIndex := map[*schema.Field]int{}
	addRead := func(f *schema.Field) int {
		if i, ok := readIndex[f]; ok {
			return i
		}
		readIndex[f] = len(b.read)
		b.read = append(b.read, f)
		return len(b.read) - 1
	}
	var arrowFields []arrow.Field
	addOut := func(f *schema.Field) error {
		af, err := schema.ArrowField(f, schema.ArrowOptions{})
		if err != nil {
			return errs.Wrap(errs.UnsupportedTable, "", err, "cannot read column %q", f.Name)
		}
		arrowFields = append(arrowFields, af)
		oc := outColumn{field: f, arrow: af, partition: partCols[f.Name], key: f.PhysicalName(b.mode), read: -1}
		if !oc.partition {
			oc.read = addRead(f)
		}
		b.out = append(b.out, oc)
		return nil
	}
	addMeta := func(name string) error {
		af, err := b.addMeta(metaColumnNamed(name), name, addRead)
		arrowFields = append(arrowFields, af)
		return err
	}
	for i, f := range fields {
		var err error
		if name, ok := metaAt[i]; ok {
			err = addMeta(name)
		} else {
			err = addOut(f)
		}
		if err != nil {
			return nil, err
		}
	}
	var appended []string
	if s.rowIndex {
		appended = append(appended, RowIndexColumn)
	}
	if s.rowTracking {
		appended = append(appended, RowIDColumn, RowCommitVersionColumn)
	}
	for _, name := range appended {
		if slices.Contains(s.columns, name) {
			return nil, errs.New(errs.InvalidArgument, "", "column %q selected twice", name)
		}
		if err := addMeta(name); err != nil {
			return nil, err
		}
	}
	b.visible = len(b.out)
	b.outSchema = arrow.NewSchema(arrowFields, nil)
	b.preds = append(b.preds, s.given...)
	sess, err := expr.NewSession(s.zone)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "scan session time zone (WithSessionTimeZone)")
	}
	b.sess = sess
	for _, w := range s.wheres {
		p, err := sess.ParsePredicate(w, sc)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, "", err, "scan predicate %q", w)
		}
		b.preds = append(b.preds, p)
		// What the predicate implies for generated partition columns
		// (d = CAST(ts AS DATE): ts >= ... skips partitions).
		if g := sess.GeneratedPartitionFilter(p.Expr(), sc, b.src.PartitionColumns()); g != nil {
			if gp, err := sess.BindTable(g, sc); err == nil {
				b.preds = append(b.preds, gp)
			}
		}
	}
	for _, f := range s.filters {
		p, err := f.predicate(sc, sess)
		if err != nil {
			return nil, err
		}
		b.preds = append(b.preds, p)
	}
	if err := b.bindPredicates(addOut); err != nil {
		return nil, err
	}
	b.evalSchema = arrow.NewSchema(arrowFields, nil)
	for _, f := range b.read {
		dt, err := schema.ArrowType(f.Type, schema.ArrowOptions{})
		if err != nil {
			return nil, errs.Wrap(errs.UnsupportedTable, "", err, "cannot read column %q", f.Name)
		}
		b.readTypes = append(b.readTypes, dt)
	}
	b.dictionaryReads()
	return b, nil
}

// bindPredicates adds the columns the predicates read but the scan does
// not return to the columns read (addOut), after the selected ones.
func (b *bound) bindPredicates(addOut func(*schema.Field) error) error {
	parts := b.src.PartitionColumns()
	for _, p := range b.preds {
		if !expr.OnlyPartitionColumns(p, parts) {
			b.predStats = true
		}
		for _, ref := range p.Columns() {
			f := b.sc.Field(ref.Path[0])
			if f == nil {
				return errs.New(errs.InvalidArgument, "", "predicate %s reads column %s, which the table does not have (columns: %s)", p, ref, columnNames(b.sc))
			}
			known := false
			for _, oc := range b.out {
				known = known || oc.field == f
			}
			if !known {
				if err := addOut(f); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func columnNames(sc *schema.Struct) string {
	s := ""
	for i, f := range sc.Fields {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("%q", f.Name)
	}
	return s
}

func (b *bound) plan(ctx context.Context) (*Explanation, error) {
	st := b.src.Store()
	e := &Explanation{}
	files := b.src.Files()
	if b.chosen {
		files = b.files
	}
	for i, add := range files {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, errs.Wrap(errs.Canceled, "", err, "planning the scan")
			}
		}
		if add == nil {
			continue
		}
		key, err := dataKey(st, add.Path)
		if err != nil {
			return nil, err
		}
		var fs *stats.File
		reason, allMatch := "", len(b.preds) == 0
		if len(b.preds) > 0 {
			if err := b.checkPartitionValues(add); err != nil {
				return nil, err
			}
			if b.predStats {
				fs = stats.Parse(add.Stats, b.sc, b.mode)
			}
			reason, allMatch = b.decide(add, fs)
		}
		if reason != "" {
			e.Skipped = append(e.Skipped, SkippedFile{Add: add, Key: key, Reason: reason})
			continue
		}
		e.Files = append(e.Files, FileTask{Add: add, Key: key, stats: fs, allMatch: allMatch})
	}
	return e, nil
}

// checkPartitionValues fails on a partition value of add that does not
// parse: expr would decide such a file as unknown and read it, and the
// error would come only then.
func (b *bound) checkPartitionValues(add *protocol.Add) error {
	for i := range b.out {
		if oc := &b.out[i]; oc.partition {
			if _, err := oc.partitionValue(b.sess, add); err != nil {
				return err
			}
		}
	}
	return nil
}

// decide judges a file by the predicates from its partition values and
// statistics: why no row of it can match (the file is skipped), or whether
// every row matches (its rows need no evaluation).
func (b *bound) decide(add *protocol.Add, fs *stats.File) (reason string, allMatch bool) {
	allMatch = true
	for _, p := range b.preds {
		switch expr.Decide(p, expr.File{PartitionValues: add.PartitionValues, Stats: fs}) {
		case expr.False:
			return fmt.Sprintf("predicate %s: no row can match, by partition values and statistics", p), false
		case expr.Unknown:
			allMatch = false
		}
	}
	return "", allMatch
}

// partitionValue parses the log's text of partition column oc for add in
// session sess.
func (oc *outColumn) partitionValue(sess expr.Session, add *protocol.Add) (any, error) {
	v, _, err := sess.PartitionValue(oc.field.Type, partitionString(add, oc.key, oc.field.Name))
	if err != nil {
		return nil, errs.Wrap(errs.CorruptTable, add.Path, err, "partition value of column %q", oc.field.Name)
	}
	return v, nil
}

// partitionString is the log's text for a partition column of a file: keyed
// by physical name under column mapping, by logical name otherwise (and as
// a fallback). A missing key is null.
func partitionString(add *protocol.Add, key, logical string) string {
	if v, ok := add.PartitionValues[key]; ok {
		return v
	}
	return add.PartitionValues[logical]
}
