package txn

import (
	"fmt"
	"sort"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
)

// MaxWriterVersion is the highest writer protocol version this engine
// writes to.
const MaxWriterVersion = 7

// tableView is what the writer checks look at.
type tableView struct {
	md     *protocol.Metadata
	schema *schema.Struct
	op     Operation
}

// writerFeatures lists every writer feature this engine can commit to a
// table with, and the condition under which it still cannot: a rule
// returns "" when the write is fine, else why not. A feature missing from
// the table is refused by name.
var writerFeatures = map[string]func(*tableView) string{
	// delta.appendOnly=true is enforced on the commit's actions.
	"appendOnly": func(v *tableView) string {
		if appendOnly(v.md) && (v.op.Name == OpDelete || v.op.Name == OpUpdate || v.op.RewritesRows) {
			return "appendOnly (the table is append-only: delta.appendOnly is true, so " + v.op.Name + " may not remove or change rows)"
		}
		return ""
	},
	"invariants": func(v *tableView) string {
		return columnsWith(v.schema, "invariants", func(k string) bool { return k == "delta.invariants" })
	},
	"checkConstraints": func(v *tableView) string {
		cs := CheckConstraints(v.md)
		if len(cs) == 0 || v.op.KeepsColumnRules {
			return ""
		}
		names := make([]string, len(cs))
		for i, c := range cs {
			names[i] = c.Name
		}
		return "checkConstraints (CHECK constraints " + strings.Join(names, ", ") + ")"
	},
	// Without change data files, a commit's adds and removes are the
	// change feed: right for appends and whole-file removes, wrong for
	// operations that rewrite files keeping some of their rows (readers
	// would see the kept rows deleted and inserted again).
	"changeDataFeed": func(v *tableView) string {
		if !ChangeDataFeed(v.md) {
			return ""
		}
		switch {
		case v.op.WritesChangeData && mappingNone(v.md):
			return ""
		case v.op.WritesChangeData:
			return "changeDataFeed (delta.enableChangeDataFeed is true with column mapping, whose change data files this engine does not write yet)"
		case v.op.Name == OpDelete, v.op.Name == OpUpdate, v.op.Name == OpMerge:
			return "changeDataFeed (delta.enableChangeDataFeed is true and " + v.op.Name + " would need change data files)"
		case v.op.RewritesRows:
			return "changeDataFeed (delta.enableChangeDataFeed is true and this " + v.op.Name +
				" rewrites files keeping some of their rows, which needs change data files; replace whole files instead, e.g. with a predicate on partition columns only)"
		}
		return ""
	},
	"generatedColumns": func(v *tableView) string {
		if v.op.KeepsColumnRules {
			return ""
		}
		return columnsWith(v.schema, "generatedColumns", func(k string) bool { return k == schema.GenerationExpressionKey })
	},
	"identityColumns": func(v *tableView) string {
		if v.op.KeepsColumnRules {
			return ""
		}
		return columnsWith(v.schema, "identityColumns", func(k string) bool { return strings.HasPrefix(k, "delta.identity.") })
	},
	// Clustered tables: writes add unclustered files (no clusteringProvider),
	// as Spark does outside eager clustering; statistics cover the
	// clustering columns, which ALTER and create check; OPTIMIZE clusters.
	"clustering": nil,
	// Fresh row ids are assigned at commit (rowids.go). With row
	// tracking enabled, rows an operation copies must keep their ids.
	"rowTracking": func(v *tableView) string {
		if !propOn(v.md, protocol.PropEnableRowTracking) || v.op.KeepsRowIDs {
			return ""
		}
		switch v.op.Name {
		case OpDelete, OpUpdate, OpMerge, OpOptimize, OpReorg:
		default:
			if !v.op.RewritesRows {
				return ""
			}
		}
		return "rowTracking (delta.enableRowTracking is true and this " + v.op.Name + " would copy rows without keeping their row ids)"
	},
	"columnMapping":       nil, // the data writer writes physical names
	"deletionVectors":     nil,
	"timestampNtz":        nil,
	"domainMetadata":      nil, // domains are kept; same-domain commits conflict
	"v2Checkpoint":        nil, // checkpoints carry checkpointMetadata (v2 content)
	"inCommitTimestamp":   nil,
	"vacuumProtocolCheck": nil,
	// Type changes are recorded in delta.typeChanges where this engine
	// widens a column (op.WidenTypes); old files read as the wider type.
	"typeWidening": nil,
	// Its rows are written as any others; no type changes on it
	// (protocol.TypeWideningPreview).
	"typeWidening-preview": nil,
}

// Constraint is a CHECK constraint of a table: delta.constraints.<Name> =
// Expr.
type Constraint struct{ Name, Expr string }

// CheckConstraints lists the table's CHECK constraints by name.
func CheckConstraints(md *protocol.Metadata) []Constraint {
	var out []Constraint
	if md == nil {
		return nil
	}
	for k, v := range md.Configuration {
		if name, ok := strings.CutPrefix(k, "delta.constraints."); ok {
			out = append(out, Constraint{Name: name, Expr: v})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// WritableFeature reports whether this engine honours the writer feature,
// so that it may add it to a table's protocol.
func WritableFeature(name string) bool {
	_, ok := writerFeatures[name]
	// The preview of type widening is written where a table has it, never
	// added to one.
	return ok && name != protocol.FeatureTypeWideningPreview
}

// CheckWritable refuses, with errs.UnsupportedTable naming each feature, a
// commit of op to the table snap shows when the table's protocol needs
// writer support this engine lacks. Call it before writing data files;
// Commit calls it again on the table as the commit leaves it.
func CheckWritable(snap *snapshot.Snapshot, op Operation) error {
	if snap == nil {
		return errs.New(errs.InvalidArgument, "", "no snapshot to check")
	}
	return CheckProtocolWritable(snap.Protocol(), snap.Metadata(), op)
}

// CheckRewrite refuses, with errs.UnsupportedTable naming each feature, an
// operation op that removes or changes rows of the table snap shows
// (DELETE, UPDATE, a MERGE or upsert that replaces rows) when the table's
// features forbid it: appendOnly, change data feed (no change data files
// are written), CHECK constraints, generated and identity columns unless
// op.KeepsColumnRules, and whatever else CheckWritable refuses for op. It is the one home of "may
// this table's rows be rewritten by op": call it as soon as the operation
// knows it will remove or change rows, before writing data files.
func CheckRewrite(snap *snapshot.Snapshot, op Operation) error {
	op.RewritesRows = true
	return CheckWritable(snap, op)
}

// CheckProtocolWritable is CheckWritable on a protocol and metaData action,
// for tables no snapshot can be built for (unreadable) or not yet created.
func CheckProtocolWritable(p *protocol.Protocol, md *protocol.Metadata, op Operation) error {
	if p == nil || md == nil {
		return errs.New(errs.InvalidArgument, "", "a writable table needs a protocol and a metaData action")
	}
	var missing []string
	if p.MinWriterVersion > MaxWriterVersion {
		missing = append(missing, fmt.Sprintf("writerVersion %d", p.MinWriterVersion))
	}
	// A writer must also read what it rewrites.
	missing = append(missing, protocol.UnsupportedReaderFeatures(p)...)
	sc, err := schema.Parse(md.SchemaString)
	if err != nil {
		return errs.Wrap(errs.CorruptTable, "", err, "table schema")
	}
	view := &tableView{md: md, schema: sc, op: op}
	for _, f := range p.EffectiveWriterFeatures() {
		rule, known := writerFeatures[f]
		switch {
		case !known:
			missing = append(missing, f)
		case rule != nil && !op.WritesNoRows:
			if why := rule(view); why != "" {
				missing = append(missing, why)
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Strings(missing)
	return errs.New(errs.UnsupportedTable, "", "the table needs writer support for %s, which this engine does not have",
		strings.Join(uniq(missing), ", "))
}

func appendOnly(md *protocol.Metadata) bool {
	return propOn(md, protocol.PropAppendOnly)
}

// ChangeDataFeed reads delta.enableChangeDataFeed or its legacy name:
// whether row changes must be written to the change data feed.
func ChangeDataFeed(md *protocol.Metadata) bool {
	return propOn(md, protocol.PropEnableChangeDataFeed) || propOn(md, protocol.PropEnableChangeDataCapture)
}

// DeletionVectors reports whether a row change to the table is written as
// deletion vectors, as Spark writes it: the protocol supports the
// deletionVectors feature and delta.enableDeletionVectors is true (a value
// that is not a boolean is off: deletion vectors are a choice, not an
// obligation).
func DeletionVectors(p *protocol.Protocol, md *protocol.Metadata) bool {
	if p == nil || md == nil || !p.HasFeature("deletionVectors") {
		return false
	}
	on, err := protocol.Properties(md.Configuration).Bool(protocol.PropEnableDeletionVectors, false)
	return on && err == nil
}

// propOn reads a boolean table property that switches on a writer
// obligation; a value that is not a boolean counts as on, so that a typo
// never disables an obligation.
func propOn(md *protocol.Metadata, key string) bool {
	if md == nil {
		return false
	}
	b, err := protocol.Properties(md.Configuration).Bool(key, false)
	return b || err != nil
}

// columnsWith names the columns (nested ones by dotted path) whose
// metadata has a key keep accepts, as "feature (columns a, b.c)".
func columnsWith(sc *schema.Struct, feature string, keep func(string) bool) string {
	var cols []string
	var walk func(prefix string, t schema.Type)
	walk = func(prefix string, t schema.Type) {
		switch t := t.(type) {
		case *schema.Struct:
			for _, f := range t.Fields {
				name := prefix + f.Name
				for k := range f.Metadata {
					if keep(k) {
						cols = append(cols, name)
						break
					}
				}
				walk(name+".", f.Type)
			}
		case *schema.Array:
			walk(prefix, t.Element)
		case *schema.Map:
			walk(prefix, t.Key)
			walk(prefix, t.Value)
		}
	}
	walk("", sc)
	if len(cols) == 0 {
		return ""
	}
	return feature + " (columns " + strings.Join(cols, ", ") + ")"
}

func uniq(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// mappingNone reports a table without column mapping.
func mappingNone(md *protocol.Metadata) bool {
	m, err := schema.ParseMode(md.Configuration[protocol.PropColumnMappingMode])
	return err == nil && m == schema.MappingNone
}
