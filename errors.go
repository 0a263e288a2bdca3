package deltalite

import "github.com/deltalite-go/deltalite/internal/errs"

// Error is the error every function of this module returns. Match its kind
// with errors.Is against the sentinels below; read Path and Msg for detail.
type Error = errs.Error

// ErrorKind classifies an Error.
type ErrorKind = errs.Kind

// Sentinels to match with errors.Is.
var (
	ErrCommitConflict   = errs.ErrCommitConflict   // a concurrent commit won and retries were exhausted
	ErrSchemaMismatch   = errs.ErrSchemaMismatch   // data does not fit the table schema
	ErrTableNotFound    = errs.ErrTableNotFound    // no Delta table at the URI
	ErrTableExists      = errs.ErrTableExists      // a table exists where none was expected
	ErrUnsupportedTable = errs.ErrUnsupportedTable // the table uses a feature this engine cannot handle (named)
	ErrSourceTooLarge   = errs.ErrSourceTooLarge   // the input exceeds MaxSourceBytes
	ErrInvalidArgument  = errs.ErrInvalidArgument  // a bad option, filter or argument
	ErrCorruptTable     = errs.ErrCorruptTable     // the log or a data file is broken (the file is named)
	ErrNotFound         = errs.ErrNotFound         // a version, timestamp, file or column does not exist
	ErrCanceled         = errs.ErrCanceled         // the context ended
)
