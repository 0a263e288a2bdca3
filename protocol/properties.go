package protocol

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Table property keys this engine reads.
const (
	PropCheckpointInterval         = "delta.checkpointInterval"
	PropLogRetentionDuration       = "delta.logRetentionDuration"
	PropDeletedFileRetention       = "delta.deletedFileRetentionDuration"
	PropEnableExpiredLogCleanup    = "delta.enableExpiredLogCleanup"
	PropTargetFileSize             = "delta.targetFileSize"
	PropAppendOnly                 = "delta.appendOnly"
	PropEnableInCommitTimestamps   = "delta.enableInCommitTimestamps"
	PropICTEnablementVersion       = "delta.inCommitTimestampEnablementVersion"
	PropICTEnablementTimestamp     = "delta.inCommitTimestampEnablementTimestamp"
	PropIsolationLevel             = "delta.isolationLevel"
	PropDataSkippingNumIndexedCols = "delta.dataSkippingNumIndexedCols"
	PropDataSkippingStatsColumns   = "delta.dataSkippingStatsColumns"
	PropStringPrefixLength         = "delta.dataSkippingStringPrefixLength"
	PropWriteStatsAsJSON           = "delta.checkpoint.writeStatsAsJson"
	PropWriteStatsAsStruct         = "delta.checkpoint.writeStatsAsStruct"
	PropColumnMappingMode          = "delta.columnMapping.mode"
	PropColumnMappingMaxID         = "delta.columnMapping.maxColumnId"
	PropEnableDeletionVectors      = "delta.enableDeletionVectors"
	PropEnableChangeDataFeed       = "delta.enableChangeDataFeed"
	PropEnableChangeDataCapture    = "delta.enableChangeDataCapture" // the legacy name of enableChangeDataFeed
	PropEnableTypeWidening         = "delta.enableTypeWidening"
	PropEnableRowTracking          = "delta.enableRowTracking"
	PropCheckpointPolicy           = "delta.checkpointPolicy"
)

// Properties reads typed table properties with Delta's defaults.
type Properties map[string]string

// Int reads an integer property, or def when unset. A value that is not an
// integer is an error naming the property.
func (p Properties) Int(key string, def int64) (int64, error) {
	v, ok := p[key]
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("table property %s = %q is not an integer", key, v)
	}
	return n, nil
}

// Bool reads a boolean property, or def when unset.
func (p Properties) Bool(key string, def bool) (bool, error) {
	v, ok := p[key]
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(v)))
	if err != nil {
		return false, fmt.Errorf("table property %s = %q is not true or false", key, v)
	}
	return b, nil
}

// Duration reads an interval property ("interval 1 week", "30 days",
// "interval 2 hours"), or def when unset.
func (p Properties) Duration(key string, def time.Duration) (time.Duration, error) {
	v, ok := p[key]
	if !ok || strings.TrimSpace(v) == "" {
		return def, nil
	}
	d, err := ParseInterval(v)
	if err != nil {
		return 0, fmt.Errorf("table property %s: %w", key, err)
	}
	return d, nil
}

// CheckpointInterval is delta.checkpointInterval (default 100, as delta-rs).
func (p Properties) CheckpointInterval() (int64, error) {
	n, err := p.Int(PropCheckpointInterval, 100)
	if err == nil && n <= 0 {
		err = fmt.Errorf("table property %s = %d must be positive", PropCheckpointInterval, n)
	}
	return n, err
}

// Defaults of the retention properties, as a table property spells them.
const (
	DefaultLogRetention         = "interval 30 days"
	DefaultDeletedFileRetention = "interval 1 week"
)

// The retention defaults as durations, parsed once (any test would fail
// at start if a constant did not parse).
var (
	defaultLogRetention         = mustInterval(DefaultLogRetention)
	defaultDeletedFileRetention = mustInterval(DefaultDeletedFileRetention)
)

// LogRetention is delta.logRetentionDuration (default 30 days).
func (p Properties) LogRetention() (time.Duration, error) {
	return p.Duration(PropLogRetentionDuration, defaultLogRetention)
}

// mustInterval parses a constant interval.
func mustInterval(s string) time.Duration {
	d, err := ParseInterval(s)
	if err != nil {
		panic(err)
	}
	return d
}

// DeletedFileRetention is delta.deletedFileRetentionDuration (default 1 week).
func (p Properties) DeletedFileRetention() (time.Duration, error) {
	return p.Duration(PropDeletedFileRetention, defaultDeletedFileRetention)
}

// TargetFileSize is delta.targetFileSize (default 100 MiB).
func (p Properties) TargetFileSize() (int64, error) {
	n, err := p.Int(PropTargetFileSize, 100<<20)
	if err == nil && n <= 0 {
		err = fmt.Errorf("table property %s = %d must be positive", PropTargetFileSize, n)
	}
	return n, err
}

var intervalUnits = map[string]time.Duration{
	"microsecond": time.Microsecond, "millisecond": time.Millisecond, "second": time.Second,
	"minute": time.Minute, "hour": time.Hour, "day": 24 * time.Hour, "week": 7 * 24 * time.Hour,
}

// ParseInterval reads Spark's calendar interval form ("interval 1 week",
// "interval 30 days 12 hours", "7 days").
func ParseInterval(s string) (time.Duration, error) {
	f := strings.Fields(strings.ToLower(strings.TrimSpace(s)))
	if len(f) > 0 && f[0] == "interval" {
		f = f[1:]
	}
	if len(f) == 0 || len(f)%2 != 0 {
		return 0, fmt.Errorf("%q is not an interval like \"interval 7 days\"", s)
	}
	var total time.Duration
	for i := 0; i < len(f); i += 2 {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%q is not an interval like \"interval 7 days\"", s)
		}
		unit, ok := intervalUnits[strings.TrimSuffix(f[i+1], "s")]
		if !ok {
			return 0, fmt.Errorf("%q has an unknown unit %q", s, f[i+1])
		}
		total += time.Duration(n) * unit
	}
	return total, nil
}
