package asset

import (
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite/asset/state"
	"github.com/deltalite-go/deltalite/partitions"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

type sale struct {
	ID     int64  `delta:"id"`
	Day    string `delta:"day"`
	Amount int64  `delta:"amount"`
}

type dayTotal struct {
	Day   string `delta:"day"`
	Total int64  `delta:"total"`
}

// Go structs end to end on real tables: a daily source backfilled over
// two keys, a partitioned downstream reading the same keys, and an
// unpartitioned downstream reading every key.
func TestMaterializeStructsOnTables(t *testing.T) {
	h, dir := newHandler(t)
	st := must[*state.File](t)(state.OpenFile(dir + "/_state"))
	daily := partitions.Daily(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	byDay := WithMetadata(map[string]string{"delta/partition_expr": "day"})
	r := NewRepository(WithState(st))
	err := r.Register(
		Define0("sales", func(c *Context) ([]sale, error) {
			var out []sale
			for i, k := range c.PartitionKeys {
				out = append(out, sale{int64(10 * i), k, 5}, sale{int64(10*i + 1), k, 7})
			}
			return out, nil
		}, WithHandler(h), WithPartitions(daily), byDay),
		Define1("big_sales", "sales", func(c *Context, in []sale) ([]sale, error) {
			return slices.DeleteFunc(in, func(s sale) bool { return s.Amount < 6 }), nil
		}, WithHandler(h), WithPartitions(daily), byDay),
		Define1("totals", "sales", func(c *Context, in []sale) ([]dayTotal, error) {
			sums := map[string]int64{}
			for _, s := range in {
				sums[s.Day] += s.Amount
			}
			var out []dayTotal
			for _, d := range slices.Sorted(maps.Keys(sums)) {
				out = append(out, dayTotal{d, sums[d]})
			}
			return out, nil
		}, WithHandler(h)),
	)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Materialize(ctx, []string{"sales", "big_sales"}, Keys("2024-01-01", "2024-01-02")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Materialize(ctx, []string{"sales"}, Keys("2024-01-03")); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Materialize(ctx, []string{"totals"}); err != nil {
		t.Fatal(err)
	}
	if got := tablerows.Read(t, dir+"/big_sales"); !slices.Equal(got, []string{
		`amount=7, day="2024-01-01", id=1`, `amount=7, day="2024-01-02", id=11`}) {
		t.Fatalf("big_sales %q", got)
	}
	if got := tablerows.Read(t, dir+"/totals"); !slices.Equal(got, []string{
		`day="2024-01-01", total=12`, `day="2024-01-02", total=12`, `day="2024-01-03", total=12`}) {
		t.Fatalf("totals %q", got)
	}
	recs := must[[]state.Record](t)(st.List(ctx, "sales"))
	if len(recs) != 3 || recs[0].Key != "2024-01-01" || recs[0].Version != 0 || recs[2].Key != "2024-01-03" || recs[2].Version != 1 {
		t.Fatalf("state of sales %+v", recs)
	}
}
