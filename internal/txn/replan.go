package txn

import (
	"errors"
	"slices"

	"github.com/deltalite-go/deltalite/internal/errs"
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
	case RuleConcurrentAppend, RuleConcurrentDeleteRead, RuleConcurrentDeleteDelete, RuleConcurrentTransaction:
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
// for: only then may it plan again on b.
func SameShape(a, b *snapshot.Snapshot) bool {
	return a.Metadata().SchemaString == b.Metadata().SchemaString &&
		slices.Equal(a.PartitionColumns(), b.PartitionColumns()) &&
		a.ColumnMapping() == b.ColumnMapping()
}
