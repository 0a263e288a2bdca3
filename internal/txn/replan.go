package txn

import (
	"errors"
	"slices"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
)

// Replannable reports a commit conflict that planning again on the newer
// table resolves: another writer added to or removed from what the
// operation read, or committed the same app transaction. A protocol or
// metadata change is not: the plan was made for the old table.
func Replannable(err error) bool {
	var ce *ConflictError
	if !errors.As(err, &ce) {
		return false
	}
	switch ce.Rule {
	case RuleConcurrentAppend, RuleConcurrentDeleteRead, RuleConcurrentDeleteDelete, RuleConcurrentTransaction, RuleIdentityHighWaterMark:
		return true
	}
	return false
}

// NotLanded reports a commit error after which the commit certainly did
// not land: a conflict, a refusal before any write, or a create that
// found the table made by another writer first. The files the attempt
// wrote can then go; after any other error they stay for vacuum.
func NotLanded(err error) bool {
	return errors.Is(err, errs.ErrCommitConflict) || errors.Is(err, errs.ErrInvalidArgument) ||
		errors.Is(err, errs.ErrUnsupportedTable) || errors.Is(err, errs.ErrTableExists)
}

// SameShape reports whether the newer table b still has the schema,
// partitioning and column mapping of a, which an operation was planned
// for: only then may it plan again on b. Identity high watermarks may
// differ: numbering rows changes no shape.
func SameShape(a, b *snapshot.Snapshot) bool {
	return sameSchemaButHighWaterMarks(a.Metadata().SchemaString, b.Metadata().SchemaString) &&
		slices.Equal(a.PartitionColumns(), b.PartitionColumns()) &&
		a.ColumnMapping() == b.ColumnMapping()
}

// OnlyHighWaterMarks reports whether metaData b differs from a at most in
// the identity high watermarks of its schema (Spark writes them in the
// column's metadata when a commit numbers rows).
func OnlyHighWaterMarks(a, b *protocol.Metadata) bool {
	if a == nil || b == nil || !sameSchemaButHighWaterMarks(a.SchemaString, b.SchemaString) {
		return false
	}
	c := *b
	c.SchemaString = a.SchemaString
	return protocol.SameMetadata(a, &c)
}

func sameSchemaButHighWaterMarks(a, b string) bool {
	if a == b {
		return true
	}
	sa, err1 := schema.Parse(a)
	sb, err2 := schema.Parse(b)
	return err1 == nil && err2 == nil && withoutHighWaterMarks(sa) == withoutHighWaterMarks(sb)
}

func withoutHighWaterMarks(sc *schema.Struct) string {
	for _, f := range sc.Fields {
		delete(f.Metadata, schema.IdentityHighWaterMarkKey)
	}
	return sc.JSON()
}
