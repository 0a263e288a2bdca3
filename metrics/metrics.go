// Package metrics holds the engine's Prometheus collectors: counters and a
// duration histogram per upsert, and gauges of the process budgets in use.
//
// The collectors live on a private registry (Registry) or on any registry the
// caller names (Register); this package never touches the global default
// registry, never serves HTTP, and never lets a bad observation panic. Label
// values come from small fixed vocabularies so a caller cannot blow up the
// number of series. With limits, it is the only package allowed process-wide
// mutable state (Default).
package metrics

import (
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/deltalite-go/deltalite/limits"
)

// Label values of deltalite_upserts_total.
const (
	OutcomeOK    = "ok"
	OutcomeError = "error"

	// KindInternal is the error_kind of a failure whose kind was not given.
	KindInternal = "internal"
	// KindOther replaces a kind or strategy that is not a short snake_case word.
	KindOther = "other"
	// StrategyUnknown is the prune_strategy of an observation that named none.
	StrategyUnknown = "unknown"
)

// Metrics is one set of collectors. The zero value is not usable; a nil
// *Metrics ignores observations, so callers may leave metrics off.
type Metrics struct {
	upserts  *prometheus.CounterVec
	duration prometheus.Histogram

	filesAdded, filesRemoved, filesCarriedOver, filesProbed prometheus.Counter
	rowsUpdated, rowsInserted, rowsCopied                   prometheus.Counter

	budget []prometheus.Collector

	regOnce sync.Once
	reg     *prometheus.Registry
}

// New returns fresh collectors whose budget gauges read limits.Process().
func New() *Metrics { return NewFor(nil) }

// NewFor returns fresh collectors whose budget gauges read l (nil means
// limits.Process(), looked up at scrape time).
func NewFor(l *limits.Limits) *Metrics {
	counter := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	}
	m := &Metrics{
		upserts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "deltalite_upserts_total",
			Help: "Upserts finished, by outcome (ok/error), prune strategy and error kind (empty on success).",
		}, []string{"outcome", "prune_strategy", "error_kind"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "deltalite_upsert_duration_seconds",
			Help: "Wall time of upserts, failed ones included.",
			// 10 ms to about 5.5 minutes.
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 16),
		}),
		filesAdded:       counter("deltalite_files_added_total", "Data files added by successful upserts."),
		filesRemoved:     counter("deltalite_files_removed_total", "Data files removed by successful upserts."),
		filesCarriedOver: counter("deltalite_files_carried_over_total", "Data files of touched partitions kept untouched by successful upserts."),
		filesProbed:      counter("deltalite_files_probed_total", "Data files whose keys successful upserts probed."),
		rowsUpdated:      counter("deltalite_rows_updated_total", "Rows replaced by successful upserts."),
		rowsInserted:     counter("deltalite_rows_inserted_total", "Rows inserted by successful upserts."),
		rowsCopied:       counter("deltalite_rows_copied_total", "Unchanged rows rewritten by successful upserts (write amplification)."),
	}
	gauge := func(name, help string, read func(*limits.Limits) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help},
			func() float64 { return read(l) })
	}
	waiters := func(resource string, read func(*limits.Limits) float64) prometheus.Collector {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "deltalite_budget_waiters",
			Help:        "Acquisitions blocked on a process budget right now, by resource.",
			ConstLabels: prometheus.Labels{"resource": resource},
		}, func() float64 { return read(l) })
	}
	m.budget = []prometheus.Collector{
		gauge("deltalite_budget_bytes_in_use", "Decoded bytes held from the process budget.",
			func(l *limits.Limits) float64 { _, _, b := l.InUse(); return float64(b) }),
		gauge("deltalite_budget_files_in_use", "File readers holding a process permit.",
			func(l *limits.Limits) float64 { _, f, _ := l.InUse(); return float64(f) }),
		gauge("deltalite_budget_partitions_in_use", "Partition workers holding a process permit.",
			func(l *limits.Limits) float64 { p, _, _ := l.InUse(); return float64(p) }),
		gauge("deltalite_budget_bytes_limit", "Capacity of the process byte budget.",
			func(l *limits.Limits) float64 { return float64(l.Config().MaxDecodedBytes) }),
		waiters("bytes", func(l *limits.Limits) float64 { _, _, w := l.Waiting(); return float64(w) }),
		waiters("files", func(l *limits.Limits) float64 { _, w, _ := l.Waiting(); return float64(w) }),
		waiters("partitions", func(l *limits.Limits) float64 { w, _, _ := l.Waiting(); return float64(w) }),
	}
	return m
}

var defaultMetrics struct {
	once sync.Once
	m    *Metrics
}

// Default returns the process's metrics, built on first use; the engine records
// into these unless told otherwise.
func Default() *Metrics {
	defaultMetrics.once.Do(func() { defaultMetrics.m = New() })
	return defaultMetrics.m
}

func (m *Metrics) collectors() []prometheus.Collector {
	cs := []prometheus.Collector{
		m.upserts, m.duration,
		m.filesAdded, m.filesRemoved, m.filesCarriedOver, m.filesProbed,
		m.rowsUpdated, m.rowsInserted, m.rowsCopied,
	}
	return append(cs, m.budget...)
}

// Register mounts every collector on reg. Registering the same Metrics twice on
// one registry is not an error; any other failure (such as a name already taken
// by different collectors) unregisters what this call registered and returns
// the error.
func (m *Metrics) Register(reg prometheus.Registerer) error {
	if m == nil {
		return errors.New("metrics: Register on a nil *Metrics")
	}
	if reg == nil {
		return errors.New("metrics: Register needs a registry")
	}
	var done []prometheus.Collector
	for _, c := range m.collectors() {
		err := reg.Register(c)
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) && are.ExistingCollector == c {
			continue
		}
		if err != nil {
			for _, d := range done {
				reg.Unregister(d)
			}
			return err
		}
		done = append(done, c)
	}
	return nil
}

// Registry returns a private registry holding only these collectors, built on
// first use; serve it with promhttp.HandlerFor or gather it directly. A nil
// *Metrics yields an empty registry.
func (m *Metrics) Registry() *prometheus.Registry {
	if m == nil {
		return prometheus.NewRegistry()
	}
	m.regOnce.Do(func() {
		m.reg = prometheus.NewRegistry()
		// Cannot fail: the registry is new and the names are distinct.
		_ = m.Register(m.reg)
	})
	return m.reg
}

// UpsertObservation is what one upsert reports when it finishes.
type UpsertObservation struct {
	// Err is the upsert's error; nil means it succeeded.
	Err error
	// ErrorKind labels a failure: "commit_conflict", "schema_mismatch",
	// "table_not_found", "unsupported_table", "source_too_large",
	// "invalid_argument", "internal", ... Empty on failure means "internal";
	// ignored on success.
	ErrorKind string
	// PruneStrategy is the strategy the call used ("probe", "none", ...).
	PruneStrategy string
	Duration      time.Duration

	FilesAdded, FilesRemoved, FilesCarriedOver, FilesProbed int64
	RowsUpdated, RowsInserted, RowsCopied                   int64
}

// ObserveUpsert records one upsert: its outcome, prune strategy and error kind
// in deltalite_upserts_total, its duration (failures included), and on success
// its file and row counts. Negative counts are ignored.
func (m *Metrics) ObserveUpsert(o UpsertObservation) {
	if m == nil {
		return
	}
	outcome, kind := OutcomeOK, ""
	if o.Err != nil {
		outcome, kind = OutcomeError, label(o.ErrorKind, KindInternal)
	}
	m.upserts.WithLabelValues(outcome, label(o.PruneStrategy, StrategyUnknown), kind).Inc()
	m.duration.Observe(max(o.Duration, 0).Seconds())
	if o.Err != nil {
		return
	}
	add(m.filesAdded, o.FilesAdded)
	add(m.filesRemoved, o.FilesRemoved)
	add(m.filesCarriedOver, o.FilesCarriedOver)
	add(m.filesProbed, o.FilesProbed)
	add(m.rowsUpdated, o.RowsUpdated)
	add(m.rowsInserted, o.RowsInserted)
	add(m.rowsCopied, o.RowsCopied)
}

// add skips non-positive values: a counter panics on a negative one.
func add(c prometheus.Counter, n int64) {
	if n > 0 {
		c.Add(float64(n))
	}
}

// label returns v lower-cased if it is a short snake_case word, empty if v is
// empty, and KindOther otherwise, so label values stay a small set.
func label(v, empty string) string {
	v = strings.ToLower(strings.TrimSpace(v))
	if v == "" {
		return empty
	}
	if len(v) > 40 {
		return KindOther
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return KindOther
		}
	}
	return v
}
