package txn

import (
	"errors"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// Which conflicts a replan resolves and which commit errors certainly did
// not land, as the operations' replan loops and clean-ups rely on.
func TestReplannableAndNotLanded(t *testing.T) {
	conflict := func(r Rule) error {
		return errs.Wrap(errs.CommitConflict, "", &ConflictError{Rule: r}, "commit")
	}
	for _, c := range []struct {
		err                        error
		replannable, mayHaveLanded bool
	}{
		{conflict(RuleConcurrentAppend), true, false},
		{conflict(RuleConcurrentDeleteRead), true, false},
		{conflict(RuleConcurrentDeleteDelete), true, false},
		{conflict(RuleConcurrentTransaction), true, false},
		{conflict(RuleMetadataChanged), false, false},
		{conflict(RuleProtocolChanged), false, false},
		{conflict(RuleRetriesExhausted), false, false},
		{errs.New(errs.InvalidArgument, "", "bad"), false, false},
		{errs.New(errs.UnsupportedTable, "", "feature"), false, false},
		{errs.New(errs.Internal, "", "unknown outcome"), false, true},
		{errors.New("io"), false, true},
	} {
		if got := Replannable(c.err); got != c.replannable {
			t.Errorf("Replannable(%v) = %v", c.err, got)
		}
		if got := NotLanded(c.err); got == c.mayHaveLanded {
			t.Errorf("NotLanded(%v) = %v", c.err, got)
		}
	}
}

// SameShape holds across an append and fails once the partitioning or the
// schema differs.
func TestSameShape(t *testing.T) {
	a := create(t, storage.NewMemory(), tableSpec{partitioned: true})
	b := create(t, storage.NewMemory(), tableSpec{partitioned: true})
	if !SameShape(a, b) {
		t.Fatal("two tables of one schema and partitioning differ")
	}
	if c := create(t, storage.NewMemory(), tableSpec{}); SameShape(a, c) {
		t.Fatal("unpartitioned table has the shape of a partitioned one")
	}
	if c := create(t, storage.NewMemory(), tableSpec{partitioned: true, proto: &protocol.Protocol{MinReaderVersion: 2, MinWriterVersion: 5},
		props: map[string]string{protocol.PropColumnMappingMode: "name"}}); SameShape(a, c) {
		t.Fatal("column mapping ignored")
	}
}
