package expr

import (
	"fmt"
	"unicode/utf8"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// SyntaxError is the cause of a parse failure: where (1-based column,
// counted in characters) and what.
type SyntaxError struct {
	Column int
	Msg    string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("at column %d: %s", e.Column, e.Msg) }

// column turns a byte offset into a 1-based character column.
func column(src string, pos int) int {
	if pos > len(src) {
		pos = len(src)
	}
	if pos < 0 {
		pos = 0
	}
	return utf8.RuneCountInString(src[:pos]) + 1
}

// syntaxErr is an InvalidArgument error whose message quotes the input.
func syntaxErr(src string, pos int, format string, args ...any) error {
	return &errs.Error{Kind: errs.InvalidArgument, Msg: "expression " + quoteInput(src),
		Err: &SyntaxError{Column: column(src, pos), Msg: fmt.Sprintf(format, args...)}}
}

func quoteInput(src string) string {
	const max = 200
	if len(src) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(src[cut]) {
			cut--
		}
		src = src[:cut] + "..."
	}
	return fmt.Sprintf("%q", src)
}

// bindErr is an InvalidArgument error about a well-formed expression.
func bindErr(format string, args ...any) error {
	return errs.New(errs.InvalidArgument, "", format, args...)
}
