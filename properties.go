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
