package metrics

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/deltalite-go/deltalite/limits"
)

var upsertNames = []string{
	"deltalite_upserts_total",
	"deltalite_upsert_duration_seconds",
	"deltalite_files_added_total",
	"deltalite_files_removed_total",
	"deltalite_files_carried_over_total",
	"deltalite_files_probed_total",
	"deltalite_rows_updated_total",
	"deltalite_rows_inserted_total",
	"deltalite_rows_copied_total",
}

var budgetNames = []string{
	"deltalite_budget_bytes_in_use",
	"deltalite_budget_files_in_use",
	"deltalite_budget_partitions_in_use",
	"deltalite_budget_bytes_limit",
	"deltalite_budget_waiters",
}

func TestObserveUpsertSuccessAndFailure(t *testing.T) {
	m := NewFor(limits.New(limits.DefaultConfig()))
	m.ObserveUpsert(UpsertObservation{
		PruneStrategy: "probe", Duration: 1500 * time.Millisecond,
		FilesAdded: 3, FilesRemoved: 2, FilesCarriedOver: 7, FilesProbed: 9,
		RowsUpdated: 10, RowsInserted: 20, RowsCopied: 300,
	})
	m.ObserveUpsert(UpsertObservation{
		PruneStrategy: "probe", Duration: 500 * time.Millisecond,
		FilesAdded: 1, RowsInserted: 5,
	})
	// Failures count by kind and record their duration, never their counts.
	m.ObserveUpsert(UpsertObservation{
		Err: errors.New("lost"), ErrorKind: "commit_conflict", PruneStrategy: "none",
		Duration: 2 * time.Second, FilesAdded: 100, RowsInserted: 100,
	})

	want := `
# HELP deltalite_files_added_total Data files added by successful upserts.
# TYPE deltalite_files_added_total counter
deltalite_files_added_total 4
# HELP deltalite_files_carried_over_total Data files of touched partitions kept untouched by successful upserts.
# TYPE deltalite_files_carried_over_total counter
deltalite_files_carried_over_total 7
# HELP deltalite_files_probed_total Data files whose keys successful upserts probed.
# TYPE deltalite_files_probed_total counter
deltalite_files_probed_total 9
# HELP deltalite_files_removed_total Data files removed by successful upserts.
# TYPE deltalite_files_removed_total counter
deltalite_files_removed_total 2
# HELP deltalite_rows_copied_total Unchanged rows rewritten by successful upserts (write amplification).
# TYPE deltalite_rows_copied_total counter
deltalite_rows_copied_total 300
# HELP deltalite_rows_inserted_total Rows inserted by successful upserts.
# TYPE deltalite_rows_inserted_total counter
deltalite_rows_inserted_total 25
# HELP deltalite_rows_updated_total Rows replaced by successful upserts.
# TYPE deltalite_rows_updated_total counter
deltalite_rows_updated_total 10
# HELP deltalite_upserts_total Upserts finished, by outcome (ok/error), prune strategy and error kind (empty on success).
# TYPE deltalite_upserts_total counter
deltalite_upserts_total{error_kind="",outcome="ok",prune_strategy="probe"} 2
deltalite_upserts_total{error_kind="commit_conflict",outcome="error",prune_strategy="none"} 1
`
	var names []string
	for _, n := range upsertNames {
		if n != "deltalite_upsert_duration_seconds" {
			names = append(names, n)
		}
	}
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), names...); err != nil {
		t.Fatal(err)
	}

	h := family(t, m.Registry(), "deltalite_upsert_duration_seconds").GetMetric()[0].GetHistogram()
	if h.GetSampleCount() != 3 {
		t.Fatalf("duration samples = %d, want 3 (failures included)", h.GetSampleCount())
	}
	if math.Abs(h.GetSampleSum()-4.0) > 1e-9 {
		t.Fatalf("duration sum = %v s, want 4", h.GetSampleSum())
	}
	// 0.5 s falls in the 0.64 bucket, 1.5 s and 2 s in 2.56 and above.
	for _, b := range h.GetBucket() {
		var want uint64
		switch {
		case b.GetUpperBound() < 0.5:
			want = 0
		case b.GetUpperBound() < 1.5:
			want = 1
		default:
			want = 3
		}
		if b.GetCumulativeCount() != want {
			t.Errorf("bucket le=%v count %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
}

func TestLabelValues(t *testing.T) {
	tests := []struct {
		obs                     UpsertObservation
		outcome, strategy, kind string
	}{
		{UpsertObservation{PruneStrategy: "probe"}, "ok", "probe", ""},
		{UpsertObservation{PruneStrategy: "probe", ErrorKind: "schema_mismatch"}, "ok", "probe", ""},
		{UpsertObservation{Err: errors.New("x"), PruneStrategy: "none"}, "error", "none", "internal"},
		{UpsertObservation{Err: errors.New("x"), PruneStrategy: " Probe ", ErrorKind: "Schema_Mismatch"}, "error", "probe", "schema_mismatch"},
		{UpsertObservation{Err: errors.New("x"), ErrorKind: "table /tmp/x not found"}, "error", "unknown", "other"},
		{UpsertObservation{Err: errors.New("x"), PruneStrategy: strings.Repeat("a", 41), ErrorKind: "source_too_large"}, "error", "other", "source_too_large"},
	}
	for _, tt := range tests {
		m := NewFor(limits.New(limits.DefaultConfig()))
		m.ObserveUpsert(tt.obs)
		c, err := m.upserts.GetMetricWithLabelValues(tt.outcome, tt.strategy, tt.kind)
		if err != nil {
			t.Fatal(err)
		}
		if got := testutil.ToFloat64(c); got != 1 {
			t.Errorf("%+v: upserts_total{%s,%s,%q} = %v, want 1", tt.obs, tt.outcome, tt.strategy, tt.kind, got)
		}
		if n := testutil.CollectAndCount(m.upserts); n != 1 {
			t.Errorf("%+v: %d series, want 1", tt.obs, n)
		}
	}
}

func TestBadObservationsDoNotPanic(t *testing.T) {
	m := NewFor(limits.New(limits.DefaultConfig()))
	m.ObserveUpsert(UpsertObservation{Duration: -time.Second, FilesAdded: -1, RowsCopied: -5, RowsInserted: 2})
	if got := testutil.ToFloat64(m.rowsInserted); got != 2 {
		t.Fatalf("rows inserted = %v, want 2", got)
	}
	if got := testutil.ToFloat64(m.filesAdded); got != 0 {
		t.Fatalf("negative files added counted: %v", got)
	}
	if h := family(t, m.Registry(), "deltalite_upsert_duration_seconds").GetMetric()[0].GetHistogram(); h.GetSampleSum() != 0 || h.GetSampleCount() != 1 {
		t.Fatalf("negative duration recorded as sum %v count %d, want 0 and 1", h.GetSampleSum(), h.GetSampleCount())
	}

	var nilM *Metrics
	nilM.ObserveUpsert(UpsertObservation{RowsInserted: 1})
	if err := nilM.Register(prometheus.NewRegistry()); err == nil {
		t.Fatal("Register on nil metrics succeeded")
	}
	if n, _ := testutil.GatherAndCount(nilM.Registry()); n != 0 {
		t.Fatalf("nil metrics' registry has %d series", n)
	}
	if err := m.Register(nil); err == nil {
		t.Fatal("Register(nil) succeeded")
	}
}

func TestBudgetGauges(t *testing.T) {
	l := limits.New(limits.Config{MaxParallelPartitions: 4, MaxParallelFiles: 4, MaxDecodedBytes: 1000})
	m := NewFor(l)
	ctx := context.Background()
	b := l.NewBudget(limits.CallConfig{MaxParallelPartitions: 2, MaxParallelFiles: 4, MaxDecodedBytes: 64 << 20})
	relP, _ := b.AcquirePartition(ctx)
	relF1, _ := b.AcquireFile(ctx)
	relF2, _ := b.AcquireFile(ctx)
	r, _ := b.AcquireBytes(ctx, 600)

	// One acquisition waits on the process byte budget.
	waitCtx, cancel := context.WithCancel(ctx)
	waited := make(chan error, 1)
	go func() { _, err := b.AcquireBytes(waitCtx, 500); waited <- err }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, _, w := l.Waiting(); w == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the acquisition never waited")
		}
		time.Sleep(time.Millisecond)
	}

	want := `
# HELP deltalite_budget_bytes_in_use Decoded bytes held from the process budget.
# TYPE deltalite_budget_bytes_in_use gauge
deltalite_budget_bytes_in_use 600
# HELP deltalite_budget_bytes_limit Capacity of the process byte budget.
# TYPE deltalite_budget_bytes_limit gauge
deltalite_budget_bytes_limit 1000
# HELP deltalite_budget_files_in_use File readers holding a process permit.
# TYPE deltalite_budget_files_in_use gauge
deltalite_budget_files_in_use 2
# HELP deltalite_budget_partitions_in_use Partition workers holding a process permit.
# TYPE deltalite_budget_partitions_in_use gauge
deltalite_budget_partitions_in_use 1
# HELP deltalite_budget_waiters Acquisitions blocked on a process budget right now, by resource.
# TYPE deltalite_budget_waiters gauge
deltalite_budget_waiters{resource="bytes"} 1
deltalite_budget_waiters{resource="files"} 0
deltalite_budget_waiters{resource="partitions"} 0
`
	if err := testutil.GatherAndCompare(m.Registry(), strings.NewReader(want), budgetNames...); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-waited; !errors.Is(err, context.Canceled) {
		t.Fatalf("waiting acquisition = %v, want Canceled", err)
	}
	r.Release()
	relF1()
	relF2()
	relP()
	for _, name := range []string{"deltalite_budget_bytes_in_use", "deltalite_budget_files_in_use", "deltalite_budget_partitions_in_use"} {
		if v := family(t, m.Registry(), name).GetMetric()[0].GetGauge().GetValue(); v != 0 {
			t.Errorf("%s = %v after releases, want 0", name, v)
		}
	}
}

func TestDefaultGaugesReadProcessLimits(t *testing.T) {
	m := New()
	want := float64(limits.Process().Config().MaxDecodedBytes)
	if got := family(t, m.Registry(), "deltalite_budget_bytes_limit").GetMetric()[0].GetGauge().GetValue(); got != want {
		t.Fatalf("bytes limit gauge = %v, want the process's %v", got, want)
	}
	if d1, d2 := Default(), Default(); d1 != d2 {
		t.Fatal("Default() is not one value")
	}
	if Default() == m {
		t.Fatal("New() returned the default metrics")
	}
}

func TestExpositionNames(t *testing.T) {
	m := NewFor(limits.New(limits.DefaultConfig()))
	m.ObserveUpsert(UpsertObservation{PruneStrategy: "probe", Duration: time.Second, FilesAdded: 1})
	m.ObserveUpsert(UpsertObservation{Err: errors.New("x"), ErrorKind: "invalid_argument", PruneStrategy: "probe"})
	all := append(append([]string{}, upsertNames...), budgetNames...)
	// GatherAndFormat keeps only the families named.
	text, err := testutil.GatherAndFormat(m.Registry(), expfmt.TypeTextPlain, all...)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range all {
		if !strings.Contains(string(text), "\n# TYPE "+name+" ") {
			t.Errorf("exposition lacks %s:\n%s", name, text)
		}
	}
	for _, line := range []string{
		`deltalite_upserts_total{error_kind="",outcome="ok",prune_strategy="probe"} 1`,
		`deltalite_upserts_total{error_kind="invalid_argument",outcome="error",prune_strategy="probe"} 1`,
		`deltalite_upsert_duration_seconds_count 2`,
		`deltalite_upsert_duration_seconds_bucket{le="+Inf"} 2`,
	} {
		if !strings.Contains(string(text), line+"\n") {
			t.Errorf("exposition lacks %q:\n%s", line, text)
		}
	}
	// The private registry holds only this package's collectors.
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if !strings.HasPrefix(f.GetName(), "deltalite_") {
			t.Errorf("private registry holds %s", f.GetName())
		}
	}
	if r1, r2 := m.Registry(), m.Registry(); r1 != r2 {
		t.Fatal("Registry() built twice")
	}
}

func TestRegister(t *testing.T) {
	m := NewFor(limits.New(limits.DefaultConfig()))
	reg := prometheus.NewPedanticRegistry()
	if err := m.Register(reg); err != nil {
		t.Fatal(err)
	}
	if err := m.Register(reg); err != nil {
		t.Fatalf("second Register of the same metrics = %v, want nil", err)
	}
	m.ObserveUpsert(UpsertObservation{PruneStrategy: "probe", RowsInserted: 3})
	if err := testutil.GatherAndCompare(reg, strings.NewReader(`
# HELP deltalite_rows_inserted_total Rows inserted by successful upserts.
# TYPE deltalite_rows_inserted_total counter
deltalite_rows_inserted_total 3
`), "deltalite_rows_inserted_total"); err != nil {
		t.Fatal(err)
	}
	// Also mounted on the private registry at the same time.
	if got := testutil.ToFloat64(m.rowsInserted); got != 3 {
		t.Fatalf("rows inserted = %v", got)
	}
	if n, err := testutil.GatherAndCount(m.Registry(), "deltalite_rows_inserted_total"); err != nil || n != 1 {
		t.Fatalf("private registry count = %d, %v", n, err)
	}

	// A second set of collectors cannot share the registry, and a failed
	// Register leaves nothing of it behind.
	other := NewFor(limits.New(limits.DefaultConfig()))
	if err := other.Register(reg); err == nil {
		t.Fatal("a second Metrics registered on the same registry")
	}
	if n, err := testutil.GatherAndCount(reg); err != nil || n == 0 {
		t.Fatalf("registry after the failed Register: %d series, %v", n, err)
	}

	clash := prometheus.NewRegistry()
	clash.MustRegister(prometheus.NewGauge(prometheus.GaugeOpts{Name: "deltalite_rows_copied_total", Help: "taken"}))
	if err := other.Register(clash); err == nil {
		t.Fatal("Register succeeded over a clashing name")
	}
	fams, err := clash.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(fams) != 1 || fams[0].GetName() != "deltalite_rows_copied_total" {
		t.Fatalf("failed Register left %d families behind", len(fams))
	}
}

func TestConcurrentObservations(t *testing.T) {
	m := NewFor(limits.New(limits.DefaultConfig()))
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 1000 {
				var err error
				if i%2 == 1 {
					err = errors.New("x")
				}
				m.ObserveUpsert(UpsertObservation{Err: err, ErrorKind: "commit_conflict", PruneStrategy: "probe", RowsInserted: 1, Duration: time.Millisecond})
			}
			_, _ = m.Registry().Gather()
		})
	}
	wg.Wait()
	if got := testutil.ToFloat64(m.rowsInserted); got != 4000 {
		t.Fatalf("rows inserted = %v, want 4000", got)
	}
	ok, _ := m.upserts.GetMetricWithLabelValues("ok", "probe", "")
	bad, _ := m.upserts.GetMetricWithLabelValues("error", "probe", "commit_conflict")
	if testutil.ToFloat64(ok) != 4000 || testutil.ToFloat64(bad) != 4000 {
		t.Fatalf("ok %v, error %v; want 4000 each", testutil.ToFloat64(ok), testutil.ToFloat64(bad))
	}
}

func family(t *testing.T, g prometheus.Gatherer, name string) *dto.MetricFamily {
	t.Helper()
	fams, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() == name {
			return f
		}
	}
	t.Fatalf("no family %s", name)
	return nil
}
