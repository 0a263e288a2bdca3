package write

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/colrules"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
)

// Operation names of the table changes, as Spark writes them.
const (
	OpUnsetProperties = "UNSET TBLPROPERTIES"
	OpAddColumns      = "ADD COLUMNS"
	OpClusterBy       = "CLUSTER BY"
	OpAddConstraint   = txn.OpAddConstraint
	OpDropConstraint  = "DROP CONSTRAINT"
	OpChangeColumn    = "CHANGE COLUMN"
)

// AlterOptions are the changes of one Alter (Spark's ALTER TABLE
// statements), each one metadata commit that changes no data, made in
// the order of the fields below; a change with nothing to do commits
// nothing. The zero value changes nothing. A further kind of change is
// one more field here and one more step in Alter's list.
type AlterOptions struct {
	// AddColumns adds nullable top-level columns at the end of the schema
	// (ALTER TABLE ADD COLUMNS), named as no column is.
	AddColumns []*schema.Field
	// SetProperties sets table properties (ALTER TABLE SET TBLPROPERTIES),
	// adding the table features they need: see SetProperties.
	SetProperties map[string]string
	// UnsetProperties removes table properties (ALTER TABLE UNSET
	// TBLPROPERTIES); a key the table lacks is refused. Table features stay
	// in the protocol.
	UnsetProperties []string
	// ClusterBy sets the clustering columns (ALTER TABLE CLUSTER BY),
	// making an unpartitioned table clustered when it is not yet;
	// ClusterByNone removes them (CLUSTER BY NONE: the table stays
	// clustered, without columns). Files already clustered stay until an
	// OPTIMIZE with Full.
	ClusterBy     []string
	ClusterByNone bool
	// DropConstraints removes CHECK constraints by name (ALTER TABLE DROP
	// CONSTRAINT, without IF EXISTS: a name the table lacks is refused).
	DropConstraints []string
	// AddConstraints adds CHECK constraints, name to SQL expression (ALTER
	// TABLE ADD CONSTRAINT), one commit each in name order, after the
	// drops. Each is refused when a row of the table holds it false or
	// NULL, as Spark checks them, naming how many rows and one of them.
	AddConstraints map[string]string
	// ChangeTypes widens columns, column to its new type (ALTER TABLE
	// ALTER COLUMN ... TYPE), one commit each in column order, after the
	// constraints: see ChangeType. A column is a top-level name, a nested
	// field's dotted path (s.x), or a map's key / value or an array's
	// element (m.value, a.element).
	ChangeTypes map[string]schema.Type
	// CommitMaxRetries and CommitMetadata apply to each commit.
	CommitMaxRetries int
	CommitMetadata   map[string]any
	// SessionTimeZone is the time zone the rows of the table are checked
	// against AddConstraints in, as Spark's spark.sql.session.timeZone
	// (see Options.SessionTimeZone); "" is UTC.
	SessionTimeZone string
}

// AlterChange is one commit an Alter made.
type AlterChange struct {
	Operation string
	Version   int64
}

// Alter makes the changes o asks for on the table snap shows, one commit
// each, and returns the commits made and the table after the last (snap
// when nothing changed). A refused change stops Alter: the commits before
// it stand, and the error says which change failed.
func Alter(ctx context.Context, snap *snapshot.Snapshot, o AlterOptions) ([]AlterChange, *snapshot.Snapshot, error) {
	if snap == nil || snap.IsEmpty() {
		return nil, snap, errs.New(errs.TableNotFound, "", "altering a table needs an existing table")
	}
	if len(o.ClusterBy) > 0 && o.ClusterByNone {
		return nil, snap, errs.New(errs.InvalidArgument, snap.Store().URL(), "ClusterBy and ClusterByNone exclude each other: give the columns or none")
	}
	popts := PropertiesOptions{CommitMaxRetries: o.CommitMaxRetries, CommitMetadata: o.CommitMetadata, SessionTimeZone: o.SessionTimeZone}
	type step struct {
		name string
		skip bool
		run  func(*snapshot.Snapshot) (*snapshot.Snapshot, error)
	}
	steps := []step{
		{OpAddColumns, len(o.AddColumns) == 0, func(s *snapshot.Snapshot) (*snapshot.Snapshot, error) { return AddColumns(ctx, s, o.AddColumns, popts) }},
		{txn.OpSetProperties, len(o.SetProperties) == 0, func(s *snapshot.Snapshot) (*snapshot.Snapshot, error) {
			return SetProperties(ctx, s, o.SetProperties, popts)
		}},
		{OpUnsetProperties, len(o.UnsetProperties) == 0, func(s *snapshot.Snapshot) (*snapshot.Snapshot, error) {
			return UnsetProperties(ctx, s, o.UnsetProperties, popts)
		}},
		{OpClusterBy, len(o.ClusterBy) == 0 && !o.ClusterByNone, func(s *snapshot.Snapshot) (*snapshot.Snapshot, error) { return ClusterBy(ctx, s, o.ClusterBy, popts) }},
	}
	for _, name := range o.DropConstraints {
		steps = append(steps, step{OpDropConstraint, false, func(s *snapshot.Snapshot) (*snapshot.Snapshot, error) { return DropConstraint(ctx, s, name, popts) }})
	}
	for _, name := range slices.Sorted(maps.Keys(o.AddConstraints)) {
		steps = append(steps, step{OpAddConstraint, false, func(s *snapshot.Snapshot) (*snapshot.Snapshot, error) {
			return AddConstraint(ctx, s, name, o.AddConstraints[name], popts)
		}})
	}
	for _, col := range slices.Sorted(maps.Keys(o.ChangeTypes)) {
		steps = append(steps, step{OpChangeColumn, false, func(s *snapshot.Snapshot) (*snapshot.Snapshot, error) {
			return ChangeType(ctx, s, col, o.ChangeTypes[col], popts)
		}})
	}
	var done []AlterChange
	for _, st := range steps {
		if st.skip {
			continue
		}
		post, err := st.run(snap)
		if err != nil {
			return done, snap, err
		}
		if post.Version() != snap.Version() {
			done = append(done, AlterChange{Operation: st.name, Version: post.Version()})
		}
		snap = post
	}
	return done, snap, nil
}

// commitMetadataChange commits the table's new metaData (md, nil to keep
// it), protocol (when the schema and configuration need features snap's
// lacks; never a downgrade) and actions, as one commit of op.
func commitMetadataChange(ctx context.Context, snap *snapshot.Snapshot, op txn.Operation, md *protocol.Metadata, features []string, extra []protocol.Action, o PropertiesOptions) (*snapshot.Snapshot, error) {
	op.WritesNoRows = true
	if err := txn.CheckWritable(snap, op); err != nil {
		return nil, err
	}
	next := snap.Metadata()
	if md != nil {
		next = md
	}
	sc, err := schema.Parse(next.SchemaString)
	if err != nil {
		return nil, errs.Wrap(errs.Internal, snap.Store().URL(), err, "new schema")
	}
	want := protocol.MinimalProtocol(append(protocol.RequiredFeatures(sc, next.Configuration), features...))
	if bad := protocol.UnsupportedReaderFeatures(&want); len(bad) > 0 {
		return nil, errs.New(errs.UnsupportedTable, snap.Store().URL(), "the table would need %s, which this engine cannot read", bad)
	}
	t := txn.Begin(snap, op, txn.Options{MaxRetries: o.CommitMaxRetries, Metadata: o.CommitMetadata})
	if p, upgraded := keepFeatures(snap.Protocol(), &want); upgraded {
		t.Add(protocol.Action{Protocol: p})
	}
	if md != nil {
		t.Add(protocol.Action{Metadata: md})
	}
	t.Add(extra...)
	r, err := t.Commit(ctx)
	if err != nil {
		return nil, err
	}
	return r.Snapshot, nil
}

// UnsetProperties removes table properties from the table snap shows, as
// Spark's ALTER TABLE UNSET TBLPROPERTIES (without IF EXISTS): a key the
// table lacks is refused, as are the column mapping keys (changing them
// rewrites the schema). The protocol keeps its features.
func UnsetProperties(ctx context.Context, snap *snapshot.Snapshot, keys []string, o PropertiesOptions) (*snapshot.Snapshot, error) {
	if snap == nil || snap.IsEmpty() {
		return nil, errs.New(errs.TableNotFound, "", "unsetting table properties needs an existing table")
	}
	uri := snap.Store().URL()
	old := snap.Properties()
	config := maps.Clone(old)
	for _, k := range keys {
		if _, ok := old[k]; !ok {
			return nil, errs.New(errs.InvalidArgument, uri, "table property %q is not set, so it cannot be unset (properties: %s)", k, strings.Join(slices.Sorted(maps.Keys(old)), ", "))
		}
		if k == protocol.PropColumnMappingMode || k == protocol.PropColumnMappingMaxID {
			return nil, errs.New(errs.InvalidArgument, uri, "table property %s cannot be unset: changing the column mapping rewrites the schema", k)
		}
		delete(config, k)
	}
	md := *snap.Metadata()
	md.Configuration = config
	op := txn.Operation{Name: OpUnsetProperties, Parameters: map[string]any{"properties": keys, "ifExists": false}}
	return commitMetadataChange(ctx, snap, op, &md, nil, nil, o)
}

// AddColumns adds nullable top-level columns at the end of the table's
// schema, as Spark's ALTER TABLE ADD COLUMNS (with column mapping, each
// gets its id and physical name).
func AddColumns(ctx context.Context, snap *snapshot.Snapshot, cols []*schema.Field, o PropertiesOptions) (*snapshot.Snapshot, error) {
	if snap == nil || snap.IsEmpty() {
		return nil, errs.New(errs.TableNotFound, "", "adding columns needs an existing table")
	}
	uri := snap.Store().URL()
	sc := snap.Schema().Clone()
	var logged []map[string]any
	for _, f := range cols {
		if f == nil || strings.TrimSpace(f.Name) == "" || f.Type == nil {
			return nil, errs.New(errs.InvalidArgument, uri, "add column: a column needs a name and a type (NAME TYPE)")
		}
		if sc.Field(f.Name) != nil {
			return nil, errs.New(errs.InvalidArgument, uri, "add column %q: the table has a column of that name already", f.Name)
		}
		if !f.Nullable {
			return nil, errs.New(errs.InvalidArgument, uri, "add column %q: added columns must be nullable (the table's rows have no value for it)", f.Name)
		}
		nf := &schema.Field{Name: f.Name, Type: f.Type, Nullable: true, Metadata: maps.Clone(f.Metadata)}
		if nf.Metadata == nil {
			nf.Metadata = map[string]any{}
		}
		sc.Fields = append(sc.Fields, nf)
		// commitInfo names each column as its schema JSON, as Spark does.
		var one struct{ Fields []json.RawMessage }
		if err := json.Unmarshal([]byte((&schema.Struct{Fields: []*schema.Field{nf}}).JSON()), &one); err != nil || len(one.Fields) != 1 {
			return nil, errs.New(errs.Internal, uri, "add column %q: its schema JSON", f.Name)
		}
		logged = append(logged, map[string]any{"column": one.Fields[0]})
	}
	md := snap.Metadata().WithSchema(sc, snap.ColumnMapping())
	op := txn.Operation{Name: OpAddColumns, Parameters: map[string]any{"columns": logged}}
	return commitMetadataChange(ctx, snap, op, md, nil, nil, o)
}

// ClusterBy sets the clustering columns of the table snap shows (none
// when cols is empty), as Spark's ALTER TABLE ... CLUSTER BY: one commit of
// the delta.clustering domain, with the clustering and domainMetadata
// features when the table was not clustered (it must be unpartitioned).
// The columns the table has already, and CLUSTER BY NONE on a table that is
// not clustered, commit nothing.
func ClusterBy(ctx context.Context, snap *snapshot.Snapshot, cols []string, o PropertiesOptions) (*snapshot.Snapshot, error) {
	if snap == nil || snap.IsEmpty() {
		return nil, errs.New(errs.TableNotFound, "", "changing the clustering columns needs an existing table")
	}
	uri := snap.Store().URL()
	clustered := snap.Protocol().Clustered()
	if len(cols) == 0 && !clustered {
		return snap, nil
	}
	if !clustered && len(snap.PartitionColumns()) > 0 {
		return nil, errs.New(errs.InvalidArgument, uri, "cluster by cannot be applied to a partitioned table (partitioned by %s)", strings.Join(snap.PartitionColumns(), ", "))
	}
	c, err := op.ResolveClustering(snap.Schema(), snap.PartitionColumns(), snap.ColumnMapping(), snap.Properties(), cols)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, uri, err, "clustering columns")
	}
	old, err := snap.ClusteringColumns()
	if err != nil {
		return nil, errs.Wrap(errs.CorruptTable, uri, err, "clustering columns")
	}
	if clustered && slices.Equal(old, c.Logical) {
		return snap, nil
	}
	o2 := txn.Operation{Name: OpClusterBy, Parameters: map[string]any{
		"oldClusteringColumns": strings.Join(old, ","), "newClusteringColumns": strings.Join(c.Logical, ","),
	}}
	features := []string{protocol.FeatureClustering, protocol.FeatureDomainMetadata}
	return commitMetadataChange(ctx, snap, o2, nil, features, []protocol.Action{{DomainMetadata: c.Domain()}}, o)
}

// constraintKey is the table property that holds CHECK constraint name
// (names are case-insensitive, as Spark's: the key is lower case).
func constraintKey(name string) string {
	return "delta.constraints." + strings.ToLower(name)
}

// AddConstraint adds the CHECK constraint name = expr to the table snap
// shows, as Spark's ALTER TABLE ADD CONSTRAINT: the expression must bind
// to the table's columns as a boolean this engine evaluates, a constraint
// of that name must not exist, and no row of the table may hold it false
// or NULL (the table is read for the expression's columns; a violation is
// refused naming how many rows and one of them). One commit adding
// delta.constraints.<name> and, when missing, the checkConstraints
// feature.
func AddConstraint(ctx context.Context, snap *snapshot.Snapshot, name, exprText string, o PropertiesOptions) (*snapshot.Snapshot, error) {
	if snap == nil || snap.IsEmpty() {
		return nil, errs.New(errs.TableNotFound, "", "adding a constraint needs an existing table")
	}
	uri := snap.Store().URL()
	name, exprText = strings.TrimSpace(name), strings.TrimSpace(exprText)
	if name == "" || exprText == "" || strings.ContainsAny(name, ". `") {
		return nil, errs.New(errs.InvalidArgument, uri, "add constraint: give a name (letters, digits, _) and an expression, e.g. positive_amount=amount > 0")
	}
	if old, ok := snap.Properties()[constraintKey(name)]; ok {
		return nil, errs.New(errs.InvalidArgument, uri, "constraint %q already exists as a CHECK constraint (%s); drop it first", name, old)
	}
	md := *snap.Metadata()
	md.Configuration = maps.Clone(snap.Properties())
	if md.Configuration == nil {
		md.Configuration = map[string]string{}
	}
	md.Configuration[constraintKey(name)] = exprText
	sess, err := op.Session(o.SessionTimeZone)
	if err != nil {
		return nil, err
	}
	if err := expr.SubstitutionFree(exprText); err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, uri, err, "add constraint %s", name)
	}
	if _, err := sess.ParsePredicate(exprText, snap.Schema()); err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, uri, err, "add constraint %s", name)
	}
	if e, err := expr.Parse(exprText); err == nil {
		if err := expr.ConstraintAllowed(e); err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, uri, err, "add constraint %s", name)
		}
	}
	// Binding the table's rules with the new constraint refuses an
	// expression this engine could not check on later writes.
	if _, err := colrules.For(&md, snap.Schema(), sess); err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, uri, err, "add constraint %s", name)
	}
	if err := checkExistingRows(ctx, snap, name, exprText, o.SessionTimeZone); err != nil {
		return nil, err
	}
	op := txn.Operation{Name: OpAddConstraint, Parameters: map[string]any{"name": name, "expr": exprText}}
	return commitMetadataChange(ctx, snap, op, &md, []string{"checkConstraints"}, nil, o)
}

// checkExistingRows refuses a new CHECK constraint that a row of the
// table holds false or NULL (Spark's NOT expr OR expr IS UNKNOWN).
func checkExistingRows(ctx context.Context, snap *snapshot.Snapshot, name, exprText, zone string) error {
	violates := "NOT (" + exprText + ") OR (" + exprText + ") IS NULL"
	_, rows, err := scan.New(snap, scan.WithWhere(violates), scan.WithSessionTimeZone(zone)).Records(ctx)
	if err != nil {
		return errs.Wrap(errs.InvalidArgument, snap.Store().URL(), err, "add constraint %s", name)
	}
	var n int64
	var first string
	for rec, err := range rows {
		if err != nil {
			return err
		}
		if first == "" && rec.NumRows() > 0 {
			first = rowText(rec, 0)
		}
		n += rec.NumRows()
		rec.Release()
	}
	if n > 0 {
		return errs.New(errs.InvalidArgument, snap.Store().URL(), "%d rows in the table violate the new CHECK constraint %s (%s), e.g. %s; nothing was changed: fix or delete those rows first",
			n, name, exprText, first)
	}
	return nil
}

// rowText renders row i of rec as name => value pairs.
func rowText(rec arrow.RecordBatch, i int) string {
	parts := make([]string, rec.NumCols())
	for j, c := range rec.Columns() {
		parts[j] = rec.ColumnName(j) + " => " + c.ValueStr(i)
	}
	return strings.Join(parts, ", ")
}

// DropConstraint removes the CHECK constraint name from the table snap
// shows, as Spark's ALTER TABLE DROP CONSTRAINT without IF EXISTS: a name
// the table lacks is refused. The protocol keeps checkConstraints.
func DropConstraint(ctx context.Context, snap *snapshot.Snapshot, name string, o PropertiesOptions) (*snapshot.Snapshot, error) {
	if snap == nil || snap.IsEmpty() {
		return nil, errs.New(errs.TableNotFound, "", "dropping a constraint needs an existing table")
	}
	uri := snap.Store().URL()
	key := constraintKey(strings.TrimSpace(name))
	old, ok := snap.Properties()[key]
	if !ok {
		var have []string
		for _, c := range txn.CheckConstraints(snap.Metadata()) {
			have = append(have, c.Name)
		}
		return nil, errs.New(errs.InvalidArgument, uri, "cannot drop nonexistent constraint %q (the table's CHECK constraints: %s)", name, strings.Join(have, ", "))
	}
	md := *snap.Metadata()
	md.Configuration = maps.Clone(snap.Properties())
	delete(md.Configuration, key)
	op := txn.Operation{Name: OpDropConstraint, Parameters: map[string]any{"name": strings.TrimSpace(name), "expr": old, "existed": "true"}}
	return commitMetadataChange(ctx, snap, op, &md, nil, nil, o)
}

// ChangeType widens column col of the table snap shows to type to, as
// Spark's ALTER TABLE ALTER COLUMN col TYPE to on a table with type
// widening: one CHANGE COLUMN commit of the new schema, the change
// recorded in delta.typeChanges; no data file is rewritten (readers read
// old files as the wider type). col is a top-level column, a nested
// field's dotted path, or a map's key / value or an array's element
// (m.value, a.element). Refused, naming the column and the two types:
// on a table without delta.enableTypeWidening=true; a change Delta's type
// widening does not support (a narrowing, a change of kind, a struct, map
// or array column), or one Iceberg does not read on a table with Iceberg
// compatibility; a column a CHECK constraint or generated column reads;
// date to timestamp_ntz without the timestampNtz feature. The type it
// has already commits nothing.
func ChangeType(ctx context.Context, snap *snapshot.Snapshot, col string, to schema.Type, o PropertiesOptions) (*snapshot.Snapshot, error) {
	if snap == nil || snap.IsEmpty() {
		return nil, errs.New(errs.TableNotFound, "", "changing a column's type needs an existing table")
	}
	uri := snap.Store().URL()
	col = strings.TrimSpace(col)
	if to == nil || col == "" {
		return nil, errs.New(errs.InvalidArgument, uri, "change type: give a column and a type, e.g. amount=bigint")
	}
	// A top-level column of exactly that name (one may hold a dot), else a
	// path as Spark reads one (s.x, `a.b`.c), as schema.ColumnPath reads it.
	path := []string{col}
	if snap.Schema().Field(col) == nil {
		p, err := schema.ParseColumnPath(col)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, uri, err, "change type of column %q", col)
		}
		path = p
	}
	next := snap.Schema().Clone()
	from, resolved, err := setType(next, path, to)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, uri, err, "change type of column %q", col)
	}
	col = schema.QuoteColumnPath(resolved)
	if from.String() == to.String() {
		return snap, nil
	}
	widen := protocol.TypeWidening(snap.Protocol(), snap.Metadata())
	switch {
	case !schema.CanWiden(from, to):
		return nil, errs.New(errs.InvalidArgument, uri, "column %q cannot change from %s to %s: only widening changes are allowed "+
			"(byte -> short -> int -> bigint, float -> double, byte/short/int -> double, date -> timestamp_ntz, decimal(p,s) -> decimal(p+k1,s+k2) with k1 >= k2 >= 0, "+
			"byte/short/int -> decimal(10+k1,k2), bigint -> decimal(20+k1,k2))", col, from, to)
	case protocol.TypeWideningPreview(snap.Protocol()):
		return nil, errs.New(errs.UnsupportedTable, uri, "column %q cannot change from %s to %s: the table has the preview of type widening (typeWidening-preview), "+
			"on which this engine changes no type (a change there must record the table version for preview readers); widen it with Spark (ALTER TABLE ... ALTER COLUMN %s TYPE %s)", col, from, to, col, to)
	case widen == schema.NoWidening:
		return nil, errs.New(errs.InvalidArgument, uri, "column %q cannot change from %s to %s: the table does not enable type widening; "+
			"set delta.enableTypeWidening=true first (alter --set-property delta.enableTypeWidening=true)", col, from, to)
	case !widen.Allows(from, to):
		return nil, errs.New(errs.InvalidArgument, uri, "column %q cannot change from %s to %s: the table has Iceberg compatibility, and Iceberg does not read that change", col, from, to)
	}
	if next, err = op.WidenTypes(uri, snap.Protocol(), snap.Metadata(), next); err != nil {
		return nil, err
	}
	nullable := resolved[len(resolved)-1] != "key" // a map's key is never null
	if f := fieldAt(snap.Schema(), resolved); f != nil {
		nullable = f.Nullable
	}
	// commitInfo names the column as Spark does: its path and new type as a
	// schema field, with empty metadata.
	logged, err := json.Marshal(struct {
		Name     string         `json:"name"`
		Type     string         `json:"type"`
		Nullable bool           `json:"nullable"`
		Metadata map[string]any `json:"metadata"`
	}{col, to.String(), nullable, map[string]any{}})
	if err != nil {
		return nil, errs.Wrap(errs.Internal, uri, err, "change type of column %q", col)
	}
	md := snap.Metadata().WithSchema(next, snap.ColumnMapping())
	op := txn.Operation{Name: OpChangeColumn, Parameters: map[string]any{"column": string(logged)}}
	return commitMetadataChange(ctx, snap, op, md, nil, nil, o)
}

// setType sets the atomic type at path in sc (fields found as Field finds
// them; "key", "value" and "element" within maps and arrays) and returns
// the type it had and the path as the schema spells it.
func setType(sc *schema.Struct, path []string, to schema.Type) (schema.Type, []string, error) {
	f := sc.Field(path[0])
	if f == nil {
		return nil, nil, fmt.Errorf("the table has no column %q (columns: %s)", path[0], strings.Join(fieldNames(sc), ", "))
	}
	from, rest, err := setIn(&f.Type, path[1:], to)
	if err != nil {
		return nil, nil, err
	}
	return from, append([]string{f.Name}, rest...), nil
}

func setIn(t *schema.Type, path []string, to schema.Type) (schema.Type, []string, error) {
	if len(path) == 0 {
		switch (*t).(type) {
		case *schema.Struct, *schema.Array, *schema.Map:
			return nil, nil, fmt.Errorf("it is a %s; change the type of a field, key, value or element within it", *t)
		}
		from := *t
		*t = to
		return from, nil, nil
	}
	switch c := (*t).(type) {
	case *schema.Struct:
		return setType(c, path, to)
	case *schema.Array:
		if strings.EqualFold(path[0], "element") {
			from, rest, err := setIn(&c.Element, path[1:], to)
			return from, append([]string{"element"}, rest...), err
		}
	case *schema.Map:
		switch strings.ToLower(path[0]) {
		case "key":
			from, rest, err := setIn(&c.Key, path[1:], to)
			return from, append([]string{"key"}, rest...), err
		case "value":
			from, rest, err := setIn(&c.Value, path[1:], to)
			return from, append([]string{"value"}, rest...), err
		}
	}
	return nil, nil, fmt.Errorf("%s has no part %q (a struct has fields, a map key and value, an array element)", *t, path[0])
}

// fieldAt is the struct field at path, nil when the path ends within a
// map or array.
func fieldAt(sc *schema.Struct, path []string) *schema.Field {
	f := sc.Field(path[0])
	if f == nil || len(path) == 1 {
		return f
	}
	if st, ok := f.Type.(*schema.Struct); ok {
		return fieldAt(st, path[1:])
	}
	return nil
}

func fieldNames(sc *schema.Struct) []string {
	out := make([]string, len(sc.Fields))
	for i, f := range sc.Fields {
		out[i] = f.Name
	}
	return out
}
