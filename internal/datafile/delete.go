package datafile

import (
	"context"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// DeleteAdded deletes the data files of adds, which a writer produced for a
// commit that did not happen (the operation failed after Close). It runs
// even when ctx is canceled, since an operation cancels exactly when it
// gives up; paths resolve by protocol.ObjectKey. Files it cannot delete
// are orphans that vacuum removes.
func DeleteAdded(ctx context.Context, st storage.Store, adds []*protocol.Add) {
	keys := make([]string, 0, len(adds))
	for _, a := range adds {
		if k, err := protocol.ObjectKey(st.URL(), a.Path); err == nil {
			keys = append(keys, k)
		}
	}
	if len(keys) > 0 {
		_ = st.Delete(context.WithoutCancel(ctx), keys...)
	}
}
