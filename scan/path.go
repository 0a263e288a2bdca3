package scan

import (
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// dataKey turns an add path into the object key of the data file by
// protocol.ObjectKey's rule. Anything that leaves the table root is a
// corrupt log, never a file to open.
func dataKey(st storage.Store, addPath string) (string, error) {
	key, err := protocol.ObjectKey(st.URL(), addPath)
	if err != nil {
		return "", errs.Wrap(errs.CorruptTable, addPath, err, "invalid add path")
	}
	return key, nil
}
