package scan

import (
	"errors"
	"fmt"

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

// missingFile explains err when it is a file the log names that the store
// does not have (what: "data file", "deletion vector file"): at a version older than the table's retention,
// VACUUM deleted it. Reading that version cannot give the right rows, so
// it is an error of kind NotFound that says to read a newer version. Any
// other err is returned as it is.
func missingFile(src Source, key, what string, err error) error {
	if !errors.Is(err, storage.ErrNotExist) {
		return err
	}
	at := "this version"
	if v, ok := src.(interface{ Version() int64 }); ok {
		at = fmt.Sprintf("version %d", v.Version())
	}
	return &errs.Error{Kind: errs.NotFound, Path: errs.RedactURL(key), Err: err, Msg: fmt.Sprintf(
		"%s listed in the table log at %s is missing: it was likely removed by VACUUM, %s being older than "+
			"the table's retention (delta.deletedFileRetentionDuration); read a newer version", what, at, at)}
}
