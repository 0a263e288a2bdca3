package limits

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Sizes in bytes.
const (
	KiB int64 = 1 << 10
	MiB int64 = 1 << 20
	GiB int64 = 1 << 30
)

// Environment variables read by FromEnv.
const (
	EnvMaxParallelPartitions = "DELTALITE_PROCESS_MAX_PARALLEL_PARTITIONS"
	EnvMaxParallelFiles      = "DELTALITE_PROCESS_MAX_PARALLEL_FILES"
	EnvMaxDecodedBytes       = "DELTALITE_PROCESS_MAX_BUFFERED_BYTES"
	EnvMaxSourceBytes        = "DELTALITE_MAX_SOURCE_BYTES"
)

// Config of the process-wide limits.
type Config struct {
	// MaxParallelPartitions bounds the partitions worked on at once across all
	// calls (DELTALITE_PROCESS_MAX_PARALLEL_PARTITIONS, default 8).
	MaxParallelPartitions int
	// MaxParallelFiles bounds the files read at once across all calls
	// (DELTALITE_PROCESS_MAX_PARALLEL_FILES, default 16).
	MaxParallelFiles int
	// MaxDecodedBytes bounds the decoded bytes held at once across all calls
	// (DELTALITE_PROCESS_MAX_BUFFERED_BYTES, default 256 MiB).
	MaxDecodedBytes int64
	// MaxSourceBytes is the default ceiling on one call's estimated source size
	// (DELTALITE_MAX_SOURCE_BYTES, default 2 GiB); 0 disables the guard.
	MaxSourceBytes int64
}

// DefaultConfig returns the defaults used when nothing is set.
func DefaultConfig() Config {
	return Config{
		MaxParallelPartitions: 8,
		MaxParallelFiles:      16,
		MaxDecodedBytes:       256 * MiB,
		MaxSourceBytes:        2 * GiB,
	}
}

// normalized returns c with every value usable: capacities below 1 become 1 (a
// zero-capacity semaphore would block forever) and a negative source guard
// becomes 0 (disabled).
func (c Config) normalized() Config {
	c.MaxParallelPartitions = max(c.MaxParallelPartitions, 1)
	c.MaxParallelFiles = max(c.MaxParallelFiles, 1)
	c.MaxDecodedBytes = max(c.MaxDecodedBytes, 1)
	c.MaxSourceBytes = max(c.MaxSourceBytes, 0)
	return c
}

// FromEnv returns DefaultConfig overridden by the environment variables that are
// set and not empty. Values are whole numbers of bytes (or of partitions and
// files), optionally with a binary unit: "268435456", "256MiB", "2 GiB", "64k".
//
// Unlike the parallelism and buffer limits, which must be at least 1, the source
// guard accepts 0, which disables it. A value that cannot be parsed, is negative, or
// is 0 where 0 means nothing, is reported in the error, which names every such
// variable; the returned Config then holds the default for those variables and
// the parsed values for all others, so it is always usable.
func FromEnv() (Config, error) {
	return fromLookup(os.LookupEnv)
}

func fromLookup(lookup func(string) (string, bool)) (Config, error) {
	c := DefaultConfig()
	var errs []error
	count := func(name string, dst *int) {
		v, ok, err := lookupSize(lookup, name, 1)
		if err != nil {
			errs = append(errs, err)
			return
		}
		if ok {
			if v > math.MaxInt32 {
				v = math.MaxInt32
			}
			*dst = int(v)
		}
	}
	size := func(name string, dst *int64, minimum int64) {
		v, ok, err := lookupSize(lookup, name, minimum)
		if err != nil {
			errs = append(errs, err)
			return
		}
		if ok {
			*dst = v
		}
	}
	count(EnvMaxParallelPartitions, &c.MaxParallelPartitions)
	count(EnvMaxParallelFiles, &c.MaxParallelFiles)
	size(EnvMaxDecodedBytes, &c.MaxDecodedBytes, 1)
	size(EnvMaxSourceBytes, &c.MaxSourceBytes, 0)
	return c.normalized(), errors.Join(errs...)
}

// lookupSize reads one variable; ok is false when it is unset or blank.
func lookupSize(lookup func(string) (string, bool), name string, minimum int64) (v int64, ok bool, err error) {
	raw, set := lookup(name)
	if !set || strings.TrimSpace(raw) == "" {
		return 0, false, nil
	}
	v, err = ParseSize(raw)
	if err != nil {
		return 0, false, fmt.Errorf("%s=%q: %w; using the default", name, raw, err)
	}
	if v < minimum {
		if minimum == 1 {
			return 0, false, fmt.Errorf("%s=%q: must be at least 1; using the default", name, raw)
		}
		return 0, false, fmt.Errorf("%s=%q: must not be negative (0 disables); using the default", name, raw)
	}
	return v, true, nil
}

var units = []struct {
	suffix string
	mult   int64
}{
	// Longest suffixes first so "kib" is not read as "b" after a number "...ki".
	{"kib", KiB}, {"mib", MiB}, {"gib", GiB}, {"tib", 1 << 40},
	{"k", KiB}, {"m", MiB}, {"g", GiB}, {"t", 1 << 40},
	{"b", 1},
}

// ParseSize parses a whole number with an optional binary unit (B, K/KiB, M/MiB,
// G/GiB, T/TiB; case-insensitive; spaces allowed). Decimal units such as "MB"
// are refused rather than guessed. The result may be negative; overflow is an
// error.
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	mult := int64(1)
	for _, u := range units {
		if num, found := strings.CutSuffix(t, u.suffix); found {
			t, mult = strings.TrimSpace(num), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		var ne *strconv.NumError
		if errors.As(err, &ne) && errors.Is(ne.Err, strconv.ErrRange) {
			return 0, fmt.Errorf("size %q is out of range", s)
		}
		return 0, fmt.Errorf("size %q is not a whole number with an optional unit (B, KiB, MiB, GiB, TiB)", s)
	}
	if n > math.MaxInt64/mult || n < math.MinInt64/mult {
		return 0, fmt.Errorf("size %q is out of range", s)
	}
	return n * mult, nil
}

// Defaults of the per-call knobs every operation that reads and rewrites
// files shares (DELETE, UPDATE, MERGE, OPTIMIZE, the upsert): how many files
// it reads at once, the bytes it holds in memory, the rows of a decoded
// batch. Each operation documents them as its own Default* constants.
const (
	DefaultMaxParallelFiles       = 4
	DefaultMaxBufferedBytes int64 = 64 * MiB
	DefaultReadBatchSize          = 8192
)
