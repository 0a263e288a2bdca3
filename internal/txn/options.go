package txn

import (
	"math/rand/v2"
	"runtime/debug"
	"sync"
	"time"
)

// Operation names a commit in commitInfo ("WRITE", "DELETE", ...) and
// carries its parameters. Parameters are written to
// commitInfo.operationParameters with every non-string value rendered as
// JSON text, because Spark reads that map as strings.
type Operation struct {
	Name       string
	Parameters map[string]any
	// RewritesRows marks a commit that removes files and adds back some
	// of their rows (a replace-where that selects part of a file). Not
	// written to the log; with change data feed on, such a commit needs
	// change data files, so it is refused unless WritesChangeData.
	RewritesRows bool
	// WritesChangeData marks an operation that writes its row changes
	// through the spine (op.Write), which writes change data files on a
	// table with the change data feed on. Not written to the log.
	WritesChangeData bool
	// KeepsColumnRules marks an operation that hands every new row it
	// writes to the table's column rules (internal/colrules: CHECK
	// constraints, generated and identity columns), or writes only rows the
	// table already held, unchanged, so that the checkConstraints,
	// generatedColumns and identityColumns features do not forbid it. Not
	// written to the log.
	KeepsColumnRules bool
	// KeepsRowIDs marks an operation that copies rows only through the
	// spine (op.Write), which keeps their row ids and commit versions on a
	// table with row tracking enabled. Not written to the log.
	KeepsRowIDs bool
	// WritesNoRows marks a commit that adds, removes and changes no rows
	// (VACUUM START and END): the conditions the table's features put on
	// rows do not apply to it, only whether this engine knows each
	// feature. Not written to the log.
	WritesNoRows bool
	// InPlaceFileMetadataUpdate marks a commit that re-adds files changing
	// only their metadata (ROW TRACKING BACKFILL gives them row ids), so
	// that it may re-add a file with its deletion vector on a table whose
	// delta.enableDeletionVectors is not true, as Spark's operations with
	// isInPlaceFileMetadataUpdate may. Not written to the log.
	InPlaceFileMetadataUpdate bool
}

// Operation names this engine writes, spelled as Spark and delta-rs do.
const (
	OpWrite           = "WRITE"
	OpCreateTable     = "CREATE TABLE"
	OpCreateOrReplace = "CREATE OR REPLACE TABLE"
	OpDelete          = "DELETE"
	OpUpdate          = "UPDATE"
	OpMerge           = "MERGE"
	OpOptimize        = "OPTIMIZE"
	OpReorg           = "REORG" // Spark's REORG TABLE ... APPLY (PURGE)
	OpRestore         = "RESTORE"
	OpVacuumStart     = "VACUUM START"
	OpVacuumEnd       = "VACUUM END"
	OpSetProperties   = "SET TBLPROPERTIES"
	// OpAddConstraint adds a CHECK constraint (delta.constraints.<name>),
	// the one commit that may: it checked the table's rows first.
	OpAddConstraint = "ADD CONSTRAINT"
)

// DefaultMaxRetries is the number of retries after the first attempt when
// Options.MaxRetries is 0 (delta-rs's commit_max_retries).
const DefaultMaxRetries = 15

// Options tune a transaction. The zero value is ready to use.
type Options struct {
	// MaxRetries is how many times a commit that lost the race for a version
	// is retried at a later one (each after the conflict checker allowed
	// it). 0 means DefaultMaxRetries; a negative value means no retry.
	MaxRetries int
	// Metadata is merged into commitInfo (e.g. "userMetadata", a job id).
	// A key the engine writes itself (see EngineCommitInfoKeys) is refused
	// with errs.InvalidArgument at Commit rather than silently dropped or
	// allowed to falsify the record.
	Metadata map[string]any
	// EngineInfo is commitInfo.engineInfo; default "deltalite-go/<version>".
	EngineInfo string
	// Now is the clock, for tests; default time.Now.
	Now func() time.Time
	// Backoff is the pause before retry attempt n (1-based); default
	// DefaultBackoff.
	Backoff func(attempt int) time.Duration
}

// DefaultBackoff is exponential from 10ms, capped at 1s, with jitter in
// [d/2, d] so that writers that lost together do not retry together.
func DefaultBackoff(attempt int) time.Duration {
	d := 10 * time.Millisecond
	for i := 1; i < attempt && d < time.Second; i++ {
		d *= 2
	}
	d = min(d, time.Second)
	return d/2 + rand.N(d/2+1)
}

// Retries is how many retries a MaxRetries-style knob n allows: 0 means
// DefaultMaxRetries, a negative n none.
func Retries(n int) int {
	switch {
	case n == 0:
		return DefaultMaxRetries
	case n < 0:
		return 0
	}
	return n
}

func (o Options) withDefaults() Options {
	o.MaxRetries = Retries(o.MaxRetries)
	if o.EngineInfo == "" {
		o.EngineInfo = "deltalite-go/" + moduleVersion()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Backoff == nil {
		o.Backoff = DefaultBackoff
	}
	return o
}

// moduleVersion is the version of this module as built into the binary, or
// "dev" for a build from a work tree.
var moduleVersion = sync.OnceValue(func() string {
	const path = "github.com/deltalite-go/deltalite"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Path == path && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			return bi.Main.Version
		}
		for _, d := range bi.Deps {
			if d.Path == path && d.Version != "" {
				return d.Version
			}
		}
	}
	return "dev"
})
