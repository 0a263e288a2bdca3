package merge

import (
	"fmt"
	"sort"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/metrics"
	"github.com/deltalite-go/deltalite/storage"
)

// Merge types: presets that stand for clause lists (Options.MergeType).
const (
	// TypeUpsert updates every matched row from its source row (UPDATE SET
	// *) and inserts every unmatched source row (INSERT *).
	TypeUpsert = "upsert"
	// TypeDeduplicateInsert inserts the unmatched source rows only.
	TypeDeduplicateInsert = "deduplicate_insert"
	// TypeUpdateOnly updates the matched rows only.
	TypeUpdateOnly = "update_only"
	// TypeReplaceDeleteUnmatched updates the matched rows and deletes the
	// target rows no source row matched; unmatched source rows are not
	// inserted.
	TypeReplaceDeleteUnmatched = "replace_delete_unmatched"
	// TypeCustom runs Options.Clauses.
	TypeCustom = "custom"
)

// SchemaModeMerge lets UPDATE SET * and INSERT * add the source columns the
// target lacks (Spark's WITH SCHEMA EVOLUTION).
const SchemaModeMerge = "merge"

// Default aliases, as the seed's MergeConfig has them.
const (
	DefaultSourceAlias = "s"
	DefaultTargetAlias = "t"
)

// NoSourceLimit as MaxSourceBytes turns the source guard off.
const NoSourceLimit = -1

// When is the kind of a clause: which rows it may act on.
type When uint8

// Clause kinds.
const (
	// Matched clauses act on target rows that a source row matched.
	Matched When = iota + 1
	// NotMatched clauses act on source rows that matched no target row
	// (Spark's WHEN NOT MATCHED [BY TARGET]).
	NotMatched
	// NotMatchedBySource clauses act on target rows no source row matched.
	NotMatchedBySource
)

var whenNames = [...]string{Matched: "matched", NotMatched: "not_matched", NotMatchedBySource: "not_matched_by_source"}

// String is the spec's spelling: matched, not_matched, not_matched_by_source.
func (w When) String() string {
	if int(w) < len(whenNames) && whenNames[w] != "" {
		return whenNames[w]
	}
	return fmt.Sprintf("When(%d)", w)
}

// Action is what a clause does to the rows it takes.
type Action uint8

// Clause actions.
const (
	// Update sets the columns of Clause.Set (Matched, NotMatchedBySource).
	Update Action = iota + 1
	// UpdateAll sets every target column from the source column of the
	// same name, except Clause.Except (Matched).
	UpdateAll
	// Delete removes the target row (Matched, NotMatchedBySource).
	Delete
	// Insert inserts a row with the columns of Clause.Set; the others are
	// null (NotMatched).
	Insert
	// InsertAll inserts the source row, except Clause.Except (NotMatched).
	InsertAll
)

var actionNames = [...]string{Update: "update", UpdateAll: "update_all", Delete: "delete", Insert: "insert", InsertAll: "insert_all"}

// String is the spec's spelling: update, update_all, delete, insert,
// insert_all.
func (a Action) String() string {
	if int(a) < len(actionNames) && actionNames[a] != "" {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", a)
}

// allowed reports whether a clause of kind w may take action a, as Spark's
// grammar allows: inserts only for unmatched source rows, updates and
// deletes only for target rows, UPDATE SET * only for matched rows.
func (w When) allowed(a Action) bool {
	switch w {
	case Matched:
		return a == Update || a == UpdateAll || a == Delete
	case NotMatched:
		return a == Insert || a == InsertAll
	case NotMatchedBySource:
		return a == Update || a == Delete
	}
	return false
}

// actionsOf lists the actions kind w allows, for messages.
func (w When) actionsOf() []string {
	var out []string
	for a := Update; a <= InsertAll; a++ {
		if w.allowed(a) {
			out = append(out, a.String())
		}
	}
	return out
}

// Clause is one WHEN clause. Clauses of one kind are tried in order and
// the first whose Predicate holds takes the row.
type Clause struct {
	When   When
	Action Action
	// Predicate is the clause's optional condition (the AND of WHEN
	// MATCHED AND ...), in the expression subset of internal/expr, over
	// the target and source aliases (NotMatched clauses see only the
	// source, NotMatchedBySource clauses only the target).
	Predicate string
	// Set maps a target column to the SQL expression of its new value, for
	// Update and Insert.
	Set map[string]string
	// Except names the columns UpdateAll and InsertAll leave out.
	Except []string
}

// String renders the clause as Spark SQL would spell it, for messages.
func (c Clause) String() string {
	var b strings.Builder
	switch c.When {
	case Matched:
		b.WriteString("WHEN MATCHED")
	case NotMatched:
		b.WriteString("WHEN NOT MATCHED")
	case NotMatchedBySource:
		b.WriteString("WHEN NOT MATCHED BY SOURCE")
	default:
		b.WriteString(c.When.String())
	}
	if c.Predicate != "" {
		b.WriteString(" AND " + c.Predicate)
	}
	b.WriteString(" THEN ")
	switch c.Action {
	case Update, Insert:
		verb := "UPDATE SET "
		if c.Action == Insert {
			verb = "INSERT "
		}
		b.WriteString(verb)
		for i, k := range sortedKeys(c.Set) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(k + " = " + c.Set[k])
		}
	case UpdateAll, InsertAll:
		if c.Action == UpdateAll {
			b.WriteString("UPDATE SET *")
		} else {
			b.WriteString("INSERT *")
		}
		if len(c.Except) > 0 {
			b.WriteString(" EXCEPT (" + strings.Join(c.Except, ", ") + ")")
		}
	case Delete:
		b.WriteString("DELETE")
	default:
		b.WriteString(c.Action.String())
	}
	return b.String()
}

// Options configure one MERGE. The zero value of every knob means its
// default: Options{Predicate: "t.id = s.id", MergeType: TypeUpsert} is a
// complete configuration.
type Options struct {
	// Predicate is the ON condition joining target and source rows.
	// Required.
	Predicate string
	// SourceAlias and TargetAlias qualify columns in every expression
	// (default "s" and "t").
	SourceAlias, TargetAlias string
	// MergeType is a preset (TypeUpsert, TypeDeduplicateInsert,
	// TypeUpdateOnly, TypeReplaceDeleteUnmatched) or TypeCustom; "" means
	// TypeCustom when Clauses are given. A preset takes no Clauses.
	MergeType string
	// Clauses are the WHEN clauses of TypeCustom, in order.
	Clauses []Clause
	// SchemaMode "" refuses source columns the target lacks in UPDATE SET
	// * and INSERT *; SchemaModeMerge adds them to the table (nullable, at
	// the end) in the merge's commit, and on a table with
	// delta.enableTypeWidening=true widens the columns the clauses write
	// by name to the source's wider type, nested struct fields, array
	// elements and map keys / values included, as Spark does.
	SchemaMode string
	// AllowTypeMismatch casts values to the table's types even where the
	// cast may lose information; by default such a cast is an error (the
	// seed's error_on_type_mismatch, default true).
	AllowTypeMismatch bool
	// CreateIfMissing lets deltalite.Merge create the table when there is
	// none, in the same commit as the rows the insert clauses insert
	// (version 0): its columns are the source's, partitioned by
	// PartitionBy (or clustered by ClusterBy), with Properties. A merge
	// that inserts nothing creates nothing.
	CreateIfMissing bool
	PartitionBy     []string
	ClusterBy       []string
	Properties      map[string]string

	// The budget knobs mean what they mean in upsert.Options and default
	// alike: partitions rewritten at once (2), files of a partition read at
	// once (4), bytes buffered (64 MiB: half decoded batches, half writer
	// buffers), rows of a decoded batch (8192), and the written files' size
	// (the table's delta.targetFileSize, else 100 MiB).
	MaxParallelPartitions, MaxParallelFiles int
	MaxBufferedBytes                        int64
	ReadBatchSize                           int
	TargetFileSize                          int64
	// CopyOnWrite rewrites the files whose rows change even where the table
	// has deletion vectors on (delta.enableDeletionVectors), which by
	// default mark the rows that leave a file instead (the CLI's
	// --deletion-vectors=off).
	CopyOnWrite bool
	// MaxSourceBytes refuses a source whose estimated footprint (its Arrow
	// bytes and its hash table) exceeds it, with deltalite.ErrSourceTooLarge. 0
	// takes the process limit (DELTALITE_MAX_SOURCE_BYTES); NoSourceLimit
	// disables the guard for this call.
	MaxSourceBytes int64
	// MultipartThreshold and MultipartPartSize size cloud uploads as in
	// upsert.Options.
	MultipartThreshold, MultipartPartSize int64
	// CommitMaxRetries is how many times a commit that lost the race is
	// retried and a conflicting merge planned again (default 15); negative
	// means none.
	CommitMaxRetries int
	// CommitMetadata is merged into commitInfo.
	CommitMetadata map[string]any
	// SessionTimeZone is the time zone this operation reads a TIMESTAMP
	// in, as Spark's spark.sql.session.timeZone: the ON condition, clause conditions and
	// values, and
	// the table's generated columns and CHECK constraints (CAST(ts AS
	// DATE), hour(ts), date_format(ts, ...), from_unixtime, ...). A region
	// ("America/New_York"), "UTC", "Z" or an offset ("+05:30"); "" is UTC,
	// the default (a table does not record its writers' zone). Give the
	// zone the table's Spark writers run with.
	SessionTimeZone string
	// AppID and AppVersion make the merge idempotent, as in upsert.
	AppID      string
	AppVersion int64
	// Limits are the process limits the call's budget draws from (default
	// limits.Process()).
	Limits *limits.Limits
	// Metrics record the merge (default metrics.Default()).
	Metrics *metrics.Metrics
	// StorageOptions and Store open the table for the facade; Run is
	// handed a snapshot and ignores both.
	StorageOptions map[string]string
	Store          storage.Store
}

// Aliases returns the source and target aliases, defaults applied.
func (o Options) Aliases() (source, target string) {
	source, target = strings.TrimSpace(o.SourceAlias), strings.TrimSpace(o.TargetAlias)
	if source == "" {
		source = DefaultSourceAlias
	}
	if target == "" {
		target = DefaultTargetAlias
	}
	return source, target
}

// Plan returns the clauses the merge runs, in order: a preset expanded,
// or the custom clauses checked. Errors name what to change.
func (o Options) Plan() ([]Clause, error) {
	if strings.TrimSpace(o.Predicate) == "" {
		return nil, invalid("a merge needs an ON predicate (Predicate), such as \"t.id = s.id\"")
	}
	if _, err := parseExpr(o.Predicate, "the merge predicate"); err != nil {
		return nil, err
	}
	src, tgt := o.Aliases()
	if strings.EqualFold(src, tgt) {
		return nil, invalid("the source and target aliases are both %q; give them different names", src)
	}
	switch m := strings.ToLower(strings.TrimSpace(o.SchemaMode)); m {
	case "", SchemaModeMerge:
	default:
		return nil, invalid("unknown SchemaMode %q (want \"\" or %q)", o.SchemaMode, SchemaModeMerge)
	}
	typ := strings.ToLower(strings.TrimSpace(o.MergeType))
	if typ == "" && len(o.Clauses) > 0 {
		typ = TypeCustom
	}
	if typ == TypeCustom {
		if len(o.Clauses) == 0 {
			return nil, invalid("merge type %q needs at least one clause", TypeCustom)
		}
		for i, c := range o.Clauses {
			if err := c.check(fmt.Sprintf("clause %d (%s)", i+1, c)); err != nil {
				return nil, err
			}
		}
		return append([]Clause(nil), o.Clauses...), nil
	}
	preset, ok := presets[typ]
	if !ok {
		return nil, invalid("unknown merge type %q (want %s)", o.MergeType, strings.Join(quoted(mergeTypes), ", "))
	}
	if len(o.Clauses) > 0 {
		return nil, invalid("merge type %q is a preset and takes no clauses; use %q to give clauses", typ, TypeCustom)
	}
	return append([]Clause(nil), preset...), nil
}

// presets are the clause lists the merge types stand for.
var presets = map[string][]Clause{
	TypeUpsert:                 {{When: Matched, Action: UpdateAll}, {When: NotMatched, Action: InsertAll}},
	TypeDeduplicateInsert:      {{When: NotMatched, Action: InsertAll}},
	TypeUpdateOnly:             {{When: Matched, Action: UpdateAll}},
	TypeReplaceDeleteUnmatched: {{When: Matched, Action: UpdateAll}, {When: NotMatchedBySource, Action: Delete}},
}

var mergeTypes = []string{TypeUpsert, TypeDeduplicateInsert, TypeUpdateOnly, TypeReplaceDeleteUnmatched, TypeCustom}

// check validates one clause on its own; where names it in errors.
func (c Clause) check(where string) error {
	if c.When < Matched || c.When > NotMatchedBySource {
		return invalid("%s: unknown clause kind %d (want matched, not_matched or not_matched_by_source)", where, c.When)
	}
	if !c.When.allowed(c.Action) {
		return invalid("%s: action %s is not allowed for %s clauses (allowed: %s)", where, c.Action, c.When, strings.Join(c.When.actionsOf(), ", "))
	}
	if c.Predicate != "" {
		if _, err := parseExpr(c.Predicate, where+": condition"); err != nil {
			return err
		}
	}
	switch c.Action {
	case Update, Insert:
		if len(c.Set) == 0 {
			return invalid("%s: %s needs at least one column to set", where, c.Action)
		}
		if len(c.Except) > 0 {
			return invalid("%s: except columns apply to update_all and insert_all only", where)
		}
		seen := map[string]string{}
		for _, col := range sortedKeys(c.Set) {
			if strings.TrimSpace(col) == "" {
				return invalid("%s: a column to set has an empty name", where)
			}
			if prev, dup := seen[strings.ToLower(col)]; dup {
				return invalid("%s: column %q is set twice (also as %q)", where, col, prev)
			}
			seen[strings.ToLower(col)] = col
			if _, err := parseExpr(c.Set[col], fmt.Sprintf("%s: value of %q", where, col)); err != nil {
				return err
			}
		}
	case UpdateAll, InsertAll:
		if len(c.Set) > 0 {
			return invalid("%s: %s sets every column; use %s to set chosen ones", where, c.Action, map[Action]Action{UpdateAll: Update, InsertAll: Insert}[c.Action])
		}
	case Delete:
		if len(c.Set) > 0 || len(c.Except) > 0 {
			return invalid("%s: delete takes no columns", where)
		}
	}
	return nil
}

func invalid(format string, args ...any) error {
	return errs.New(errs.InvalidArgument, "", format, args...)
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}
