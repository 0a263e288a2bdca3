package deltalite

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
)

// replaceSelector says which live files an overwrite removes: all of them,
// or those a replace-where predicate selects.
func (w *writeJob) replaceSelector(snap *snapshot.Snapshot) (func(*protocol.Add) bool, string, error) {
	if w.wo.ReplaceWhere == "" {
		return func(*protocol.Add) bool { return true }, "", nil
	}
	return nil, "", errs.New(errs.InvalidArgument, w.st.URL(), "replace-where predicates are not available yet")
}

// rowCheck returns a check every written batch must pass (rows inside the
// replace-where predicate), or nil.
func (w *writeJob) rowCheck(sc *schema.Struct, md *protocol.Metadata) (func(arrow.RecordBatch) error, error) {
	return nil, nil
}
