package deltalite

import (
	"errors"

	"github.com/deltalite-go/deltalite/internal/errs"
)

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
	ErrInternal         = errs.ErrInternal         // a bug, or a dependency failing in a way not classified above
)

// KindOf returns the kind of err: the kind of the first *Error in its chain,
// Internal for an error from outside this module. ok is false only for a
// nil err, which has no kind.
func KindOf(err error) (kind ErrorKind, ok bool) {
	if err == nil {
		return 0, false
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Kind, true
	}
	return errs.Internal, true
}
