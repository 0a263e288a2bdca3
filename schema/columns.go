package schema

import (
	"encoding/json"
	"math"
)

// The Delta column metadata keys of generated and identity columns
// (internal/colrules holds their rules).
const (
	GenerationExpressionKey  = "delta.generationExpression"
	IdentityStartKey         = "delta.identity.start"
	IdentityStepKey          = "delta.identity.step"
	IdentityAllowExplicitKey = "delta.identity.allowExplicitInsert"
	IdentityHighWaterMarkKey = "delta.identity.highWaterMark"
)

// Identity makes f an identity column, as Spark's GENERATED ALWAYS (always)
// or BY DEFAULT AS IDENTITY (START WITH start INCREMENT BY step) does: its
// values are numbered when rows are inserted. f must be a long column; a
// table created with it gets the identityColumns feature. It returns f.
func (f *Field) Identity(start, step int64, always bool) *Field {
	if f.Metadata == nil {
		f.Metadata = map[string]any{}
	}
	f.Metadata[IdentityStartKey] = start
	f.Metadata[IdentityStepKey] = step
	f.Metadata[IdentityAllowExplicitKey] = !always
	return f
}

// Generated makes f a generated column, GENERATED ALWAYS AS (expr) in
// Spark's SQL: computed from the other columns when rows leave it out,
// checked when they give it. A table created with it gets the
// generatedColumns feature. It returns f.
func (f *Field) Generated(expr string) *Field {
	if f.Metadata == nil {
		f.Metadata = map[string]any{}
	}
	f.Metadata[GenerationExpressionKey] = expr
	return f
}

// MetadataLong reads a whole number of a column's metadata: float64 when
// parsed from a schema's JSON (exact up to 2^53), int64 when set in Go.
func MetadataLong(v any) (int64, bool) {
	switch v := v.(type) {
	case float64:
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			return 0, false
		}
		return int64(v), true
	case int64:
		return v, true
	case int:
		return int64(v), true
	case json.Number:
		n, err := v.Int64()
		return n, err == nil
	}
	return 0, false
}
