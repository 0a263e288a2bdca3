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

// NewError returns an *Error of kind's Kind (kind is one of the sentinels
// above) with a formatted message, for code built on this module (an
// integration, a handler) whose errors callers match like this module's.
// Path names the file or table involved; path and message are redacted as
// RedactURL does.
func NewError(kind *Error, path, format string, args ...any) *Error {
	return errs.New(kind.Kind, path, format, args...)
}

// WrapError returns an *Error around err (nil for a nil err), redacted as
// NewError's, whose message adds what the caller was doing. If err already
// holds an *Error its kind is kept (the innermost classification wins);
// else a canceled context is ErrCanceled; else the kind is kind's.
func WrapError(kind *Error, path string, err error, format string, args ...any) error {
	return errs.Wrap(kind.Kind, path, err, format, args...)
}

// RedactURL returns s, a URL or a message holding URLs, with each URL's
// user part and secret-looking query parameters (SAS signatures, tokens)
// replaced by "[REDACTED]", as every Error's message is.
func RedactURL(s string) string { return errs.RedactURL(s) }
