package limits

import "sync"

// Limits is the process-wide layer of the budgets. It is safe for concurrent
// use; Budgets taken from it share its semaphores.
type Limits struct {
	cfg        Config
	partitions *sem
	files      *sem
	bytes      *sem
}

// New builds limits from c. Capacities below 1 are raised to 1 (a zero-capacity
// semaphore would block every caller forever) and a negative source guard
// becomes 0, as Config documents.
func New(c Config) *Limits {
	c = c.normalized()
	return &Limits{
		cfg:        c,
		partitions: newSem(int64(c.MaxParallelPartitions)),
		files:      newSem(int64(c.MaxParallelFiles)),
		bytes:      newSem(c.MaxDecodedBytes),
	}
}

// The process's limits, built on first use. This and the metrics registry are
// the only process-wide mutable state of the module.
var process struct {
	once sync.Once
	l    *Limits
	err  error
}

// Process returns the limits shared by the whole process, built once from
// FromEnv on first use. Invalid variables fall back to their defaults; the error
// naming them is kept for ProcessError, so a bad environment never stops work.
func Process() *Limits {
	process.once.Do(func() {
		c, err := FromEnv()
		process.l, process.err = New(c), err
	})
	return process.l
}

// ProcessError returns the error FromEnv reported when Process built the
// process's limits, or nil.
func ProcessError() error {
	Process()
	return process.err
}

// orProcess lets a nil *Limits stand for the process's limits.
func (l *Limits) orProcess() *Limits {
	if l == nil {
		return Process()
	}
	return l
}

// Config returns the configuration in force, after normalisation.
func (l *Limits) Config() Config { return l.orProcess().cfg }

// InUse reports what all Budgets of these limits hold right now.
func (l *Limits) InUse() (partitions, files int, bytes int64) {
	l = l.orProcess()
	return int(l.partitions.used.Load()), int(l.files.used.Load()), l.bytes.used.Load()
}

// Waiting reports how many acquisitions are blocked on each process semaphore
// right now; a steady non-zero value means the process limits are the
// bottleneck.
func (l *Limits) Waiting() (partitions, files, bytes int) {
	l = l.orProcess()
	return int(l.partitions.waiting.Load()), int(l.files.waiting.Load()), int(l.bytes.waiting.Load())
}
