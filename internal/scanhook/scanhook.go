// Package scanhook hands package scan what only the engine gives it,
// without scan's public API naming an internal type: a predicate the engine
// has already bound (operations bind theirs to name their option or
// argument in errors), and the rows of a file chosen by position (the
// change data feed reads the rows a deletion vector newly deletes). Package
// scan sets the hooks when it is initialized; callers outside this module
// give predicates as text (scan.WithWhere).
package scanhook

import (
	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/protocol"
)

// WithBound returns a scan.Option (assert it: this package cannot name
// scan's types) that adds p: a row is returned only if p IS TRUE (neither
// false nor null) for it, files whose partition values and statistics rule
// out every row are not read, and p may read columns the scan does not
// return. A nil p is ignored.
var WithBound func(p *expr.Bound) any

// WithRowsOnly returns a scan.Option (assert it) that reads, of each file
// given (by the pointer given to scan.WithFiles), only the rows at the
// positions of its bitmap, instead of the rows its deletion vector keeps:
// the file's own deletion vector is ignored.
var WithRowsOnly func(rows map[*protocol.Add]*dv.Bitmap) any
