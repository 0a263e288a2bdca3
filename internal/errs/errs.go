// Package errs holds the one error type every layer returns, so that callers
// match failures with errors.Is no matter which layer produced them.
//
// It must never import another package of this module: everything imports it.
// The root package re-exports the type and the sentinels.
package errs

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
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
// A wrapped *Error is rendered without repeating the kind and path it
// shares with e.
func (e *Error) Error() string {
	return RedactURL(e.render(nil))
}

// render writes e below outer (nil at the top): its kind unless outer has
// the same, its path unless outer has the same, its message, its cause.
func (e *Error) render(outer *Error) string {
	var parts []string
	if outer == nil || outer.Kind != e.Kind {
		parts = append(parts, e.Kind.String())
	}
	if e.Path != "" && (outer == nil || outer.Path != e.Path) {
		parts = append(parts, e.Path)
	}
	if e.Msg != "" {
		parts = append(parts, e.Msg)
	}
	if e.Err != nil {
		if inner, ok := e.Err.(*Error); ok {
			parts = append(parts, inner.render(e))
		} else {
			parts = append(parts, e.Err.Error())
		}
	}
	return strings.Join(parts, ": ")
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

// Wrap returns an *Error of kind k around err, redacted as New, whose
// message adds what the caller was doing. If err is already an *Error its
// kind is kept (the innermost classification wins: a missing file stays
// NotFound when the caller was writing); otherwise context cancellation is
// classified as Canceled.
func Wrap(k Kind, path string, err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		k = e.Kind
	} else if errors.Is(err, errContextCanceled) || errors.Is(err, errContextDeadline) {
		k = Canceled
	}
	return &Error{Kind: k, Path: RedactURL(path), Msg: RedactURL(fmt.Sprintf(format, args...)), Err: err}
}

// Panic is the cause of an error made from a recovered panic: the value
// and the stack of the goroutine that panicked, for a bug report.
type Panic struct {
	Value any
	Stack []byte
}

func (p *Panic) Error() string { return fmt.Sprintf("panic: %v", p.Value) }

// Recovered turns the value of a recover() into an *Error of kind k (usually
// Internal; CorruptTable where a decoder panics on garbage input) saying
// what failed, with the stack kept in its *Panic cause. Call it in the
// deferred function itself, so the stack is the panicking goroutine's.
func Recovered(k Kind, path, what string, v any) *Error {
	return &Error{Kind: k, Path: RedactURL(path), Msg: RedactURL(what) + ": unexpected failure",
		Err: &Panic{Value: v, Stack: debug.Stack()}}
}

// Knob is an option's name and value, for NonNegative.
type Knob struct {
	Name  string
	Value int64
}

// NonNegative returns an InvalidArgument error naming the first of knobs
// (in the order given) whose value is negative, prefixed by what the
// options configure ("upsert: "), or nil. Zero, everywhere, means the
// default.
func NonNegative(what string, knobs ...Knob) error {
	for _, k := range knobs {
		if k.Value < 0 {
			return New(InvalidArgument, "", "%s%s must not be negative (got %d); 0 takes the default", what, k.Name, k.Value)
		}
	}
	return nil
}
