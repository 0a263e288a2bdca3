// Package errs holds the one error type every layer returns, so that callers
// match failures with errors.Is no matter which layer produced them.
//
// It must never import another package of this module: everything imports it.
// The root package re-exports the type and the sentinels.
package errs

import (
	"errors"
	"fmt"
)

// Kind classifies a failure. The zero Kind is Internal.
type Kind int

const (
	Internal Kind = iota
	CommitConflict
	SchemaMismatch
	TableNotFound
	TableExists
	UnsupportedTable
	SourceTooLarge
	InvalidArgument
	CorruptTable
	NotFound
	Canceled
)

var kindNames = [...]string{
	Internal:         "internal error",
	CommitConflict:   "commit conflict",
	SchemaMismatch:   "schema mismatch",
	TableNotFound:    "table not found",
	TableExists:      "table already exists",
	UnsupportedTable: "unsupported table",
	SourceTooLarge:   "source too large",
	InvalidArgument:  "invalid argument",
	CorruptTable:     "corrupt table",
	NotFound:         "not found",
	Canceled:         "canceled",
}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is the error every exported function of the module returns.
// Msg says what was wrong and, where it helps, what to do; Path names the
// file or table involved; Err is the underlying cause, if any.
type Error struct {
	Kind Kind
	Path string
	Msg  string
	Err  error
}

// Error is the message with every URL's credentials redacted, wherever in
// the chain they came from (an SDK's error may quote the URL it was given).
func (e *Error) Error() string {
	s := e.Kind.String()
	if e.Path != "" {
		s += ": " + e.Path
	}
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return RedactURL(s)
}

func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is a sentinel of the same Kind, so that
// errors.Is(err, ErrCommitConflict) works on any wrapped *Error.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Path == "" && t.Msg == "" && t.Err == nil && t.Kind == e.Kind
}

// Sentinels to match with errors.Is.
var (
	ErrInternal         = &Error{Kind: Internal}
	ErrCommitConflict   = &Error{Kind: CommitConflict}
	ErrSchemaMismatch   = &Error{Kind: SchemaMismatch}
	ErrTableNotFound    = &Error{Kind: TableNotFound}
	ErrTableExists      = &Error{Kind: TableExists}
	ErrUnsupportedTable = &Error{Kind: UnsupportedTable}
	ErrSourceTooLarge   = &Error{Kind: SourceTooLarge}
	ErrInvalidArgument  = &Error{Kind: InvalidArgument}
	ErrCorruptTable     = &Error{Kind: CorruptTable}
	ErrNotFound         = &Error{Kind: NotFound}
	ErrCanceled         = &Error{Kind: Canceled}
)

// New returns an *Error of kind k with a formatted message. Path and
// message are redacted (RedactURL), so that no field shows a credential.
func New(k Kind, path, format string, args ...any) *Error {
	return &Error{Kind: k, Path: RedactURL(path), Msg: RedactURL(fmt.Sprintf(format, args...))}
}

// Wrap returns an *Error of kind k around err, redacted as New. If err is already an *Error
// (of any kind) it is returned unchanged, so the innermost classification wins;
// context cancellation is classified as Canceled.
func Wrap(k Kind, path string, err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	if errors.Is(err, errContextCanceled) || errors.Is(err, errContextDeadline) {
		k = Canceled
	}
	return &Error{Kind: k, Path: RedactURL(path), Msg: RedactURL(fmt.Sprintf(format, args...)), Err: err}
}
