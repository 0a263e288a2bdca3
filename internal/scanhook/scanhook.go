// Package scanhook hands package scan a predicate the engine has already
// bound (operations bind theirs to name their option or argument in
// errors) without scan's public API naming a type of internal/expr. Package
// scan sets WithBound when it is initialized; callers outside this module
// give predicates as text (scan.WithWhere).
package scanhook

import "github.com/deltalite-go/deltalite/internal/expr"

// WithBound returns a scan.Option (assert it: this package cannot name
// scan's types) that adds p: a row is returned only if p IS TRUE (neither
// false nor null) for it, files whose partition values and statistics rule
// out every row are not read, and p may read columns the scan does not
// return. A nil p is ignored.
var WithBound func(p *expr.Bound) any
