package deltalite

import (
	"context"

	"github.com/deltalite-go/deltalite/write"
)

// PropertiesOptions configure SetProperties.
type PropertiesOptions = write.PropertiesOptions

// SetProperties sets table properties (ALTER TABLE SET TBLPROPERTIES) in
// one metadata commit that changes no data, adding the table features the
// properties need, and moves t to it; properties the table already has
// with the same values commit nothing. See write.SetProperties.
func (t *Table) SetProperties(ctx context.Context, props map[string]string, o PropertiesOptions) error {
	snap, err := t.Snapshot().Refresh(ctx)
	if err != nil {
		return err
	}
	post, err := write.SetProperties(ctx, snap, props, o)
	t.moveTo(snap, post)
	return err
}

// AlterOptions are the changes of Table.Alter; see write.AlterOptions.
type AlterOptions = write.AlterOptions

// AlterChange is one commit Table.Alter made.
type AlterChange = write.AlterChange

// Alter changes the table as Spark's ALTER TABLE statements do (add
// columns, set and unset properties, cluster by), one metadata commit per
// change in that order, and moves t to the last; it returns the commits
// made. A refused change stops it, keeping the commits before it. See
// write.Alter.
func (t *Table) Alter(ctx context.Context, o AlterOptions) ([]AlterChange, error) {
	snap, err := t.Snapshot().Refresh(ctx)
	if err != nil {
		return nil, err
	}
	done, post, err := write.Alter(ctx, snap, o)
	t.moveTo(snap, post)
	return done, err
}
