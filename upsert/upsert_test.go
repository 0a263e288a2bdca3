package upsert

import (
	"errors"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
)

var basic = fields("id long", "day string", "val string")

// TestUpdatesAndInserts: matched rows are replaced whole, new keys insert,
// only the file holding a matched key is rewritten, one commit.
func TestUpdatesAndInserts(t *testing.T) {
	tb := newTable(t, basic, []string{"day"}, nil)
	tb.appendFile(`[{"id":1,"day":"d1","val":"a"},{"id":2,"day":"d1","val":"b"},{"id":3,"day":"d2","val":"c"}]`)
	tb.appendFile(`[{"id":4,"day":"d1","val":"d"},{"id":5,"day":"d2","val":"e"}]`)
	v := tb.snap.Version()
	s := tb.mustUpsert(nil, `[{"id":2,"day":"d1","val":"B"},{"id":9,"day":"d1","val":"new"},{"id":6,"day":"d3","val":"f"}]`, Options{PrimaryKeys: []string{"id"}, PartitionBy: []string{"day"}})
	// d1's second file ([4,4]) is pruned by statistics: only the first is probed.
	tb.checkRows(`[{"id":1,"day":"d1","val":"a"},{"id":2,"day":"d1","val":"B"},{"id":3,"day":"d2","val":"c"},
		{"id":4,"day":"d1","val":"d"},{"id":5,"day":"d2","val":"e"},{"id":9,"day":"d1","val":"new"},{"id":6,"day":"d3","val":"f"}]`)
	if s.Version != v+1 {
		t.Errorf("version %d, want %d", s.Version, v+1)
	}
	want := Stats{Version: v + 1, PartitionsTouched: 2, FilesAdded: 2, FilesRemoved: 1, FilesCarriedOver: 1, FilesProbed: 1,
		RowsUpdated: 1, RowsInserted: 2, RowsCopied: 1, SourceRows: 3}
	if got := clearDurations(s); got != want {
		t.Errorf("stats\n got  %v\n want %v", got, want)
	}
	tb.assertNoOrphans()
}

func clearDurations(s Stats) Stats {
	s.PlanDuration, s.RewriteDuration, s.CommitDuration = 0, 0, 0
	return s
}

func isKind(err error, target *errs.Error) bool { return errors.Is(err, target) }
