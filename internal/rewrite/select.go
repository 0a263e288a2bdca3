package rewrite

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/expr"
)

// Select evaluates pred on rec: sel[i] reports whether pred IS TRUE for
// row i when match is true, whether it IS NOT TRUE (false or null) when
// match is false; matched counts the rows for which it IS TRUE.
func Select(ctx context.Context, rec arrow.RecordBatch, pred *expr.Bound, match bool) (sel []bool, matched int64, err error) {
	m, err := expr.Mask(ctx, rec, pred)
	if err != nil {
		return nil, 0, err
	}
	defer m.Release()
	sel = make([]bool, m.Len())
	for i := range sel {
		hit := m.IsValid(i) && m.Value(i)
		if hit {
			matched++
		}
		sel[i] = hit == match
	}
	return sel, matched, nil
}
