package protocol

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/deltalite-go/deltalite/internal/editdist"
	"github.com/deltalite-go/deltalite/internal/errs"
)

// PropFeaturePrefix starts delta.feature.<name> = supported, which adds a
// table feature to the protocol without switching on its property.
const PropFeaturePrefix = "delta.feature."

// PropIgnoreProtocolDefaults tells Spark to ignore session defaults for
// the protocol; like delta.feature.*, Spark does not store it.
const PropIgnoreProtocolDefaults = "delta.ignoreProtocolDefaults"

// propSpec is one delta.* table property Delta Spark knows: how a value is
// checked and which table feature a value needs.
type propSpec struct {
	key string // canonical spelling
	// accepts returns "" for an accepted value, else what is accepted.
	accepts func(v string) string
	// values, when set, are the accepted values in the spelling stored:
	// Spark accepts TRUE or NAME, but readers in other engines may not.
	values []string
	// feature is the table feature value v needs, "" for none.
	feature func(v string) string
	// refused, when set, says why the key cannot be set through this engine.
	refused string
}

// tableProps are the delta.* keys Delta Spark 4.4 knows, plus
// delta.targetFileSize, which this engine reads. Spark refuses any other
// delta.* key (outside delta.constraints. and delta.feature.), and so does
// this engine. Keys are matched case-insensitively, as Spark does.
var tableProps = func() map[string]propSpec {
	boolean := func(key, feature string) propSpec {
		return choice(key, onValue(feature, "true"), "true", "false")
	}
	interval := func(key string) propSpec { return propSpec{key: key, accepts: interval} }
	integer := func(key string, min int64, what string) propSpec {
		return propSpec{key: key, accepts: func(v string) string {
			if n, err := strconv.ParseInt(v, 10, 32); err != nil || n < min {
				return what
			}
			return ""
		}}
	}
	refused := func(why string, keys ...string) []propSpec {
		out := make([]propSpec, len(keys))
		for i, k := range keys {
			out[i] = propSpec{key: k, refused: why}
		}
		return out
	}
	specs := []propSpec{
		boolean(PropAppendOnly, "appendOnly"),
		boolean(PropEnableDeletionVectors, "deletionVectors"),
		boolean(PropEnableChangeDataFeed, "changeDataFeed"),
		boolean(PropEnableChangeDataCapture, "changeDataFeed"),
		boolean(PropEnableInCommitTimestamps, "inCommitTimestamp"),
		boolean(PropEnableTypeWidening, "typeWidening"),
		boolean(PropEnableRowTracking, "rowTracking"),
		boolean("delta.enableIcebergCompatV1", "icebergCompatV1"),
		boolean("delta.enableIcebergCompatV2", "icebergCompatV2"),
		boolean("delta.enableIcebergCompatV3", "icebergCompatV3"),
		boolean("delta.enableVariantShredding", "variantShredding-preview"),
		choice(PropColumnMappingMode, onValue("columnMapping", "name", "id"), "none", "name", "id"),
		choice(PropCheckpointPolicy, onValue("v2Checkpoint", "v2"), "classic", "v2"),
		// Spark sets only Serializable; this engine also honours the
		// WriteSerializable that Spark and delta-rs read.
		choice(PropIsolationLevel, nil, "Serializable", "WriteSerializable"),
		choice("delta.autoOptimize.autoCompact", nil, "auto", "legacy", "true", "false"),
		{key: PropDataSkippingStatsColumns, accepts: func(string) string { return "" }},
		integer(PropCheckpointInterval, 1, "a positive integer"),
		integer("delta.randomPrefixLength", 1, "a positive integer"),
		integer(PropDataSkippingNumIndexedCols, -1, "an integer >= -1 (-1: every column)"),
		integer(PropStringPrefixLength, 0, "an integer >= 0"),
		{key: PropTargetFileSize, accepts: func(v string) string {
			if n, err := strconv.ParseInt(v, 10, 64); err != nil || n <= 0 {
				return "a positive number of bytes"
			}
			return ""
		}},
		interval(PropLogRetentionDuration),
		interval(PropDeletedFileRetention),
		interval("delta.checkpointRetentionDuration"),
		interval("delta.sampleRetentionDuration"),
		interval("delta.setTransactionRetentionDuration"),
		interval("delta.dropFeatureTruncateHistory.retentionDuration"),
		boolean(PropIgnoreProtocolDefaults, ""),
		boolean(PropEnableExpiredLogCleanup, ""),
		boolean("delta.enableFullRetentionRollback", ""),
		boolean("delta.randomizeFilePrefixes", ""),
		boolean("delta.autoOptimize", ""),
		boolean("delta.autoOptimize.optimizeWrite", ""),
		boolean("delta.compatibility.symlinkFormatManifest.enabled", ""),
		boolean(PropWriteStatsAsJSON, ""),
		boolean(PropWriteStatsAsStruct, ""),
	}
	specs = append(specs, refused(refusedMaintained,
		PropColumnMappingMaxID, PropICTEnablementVersion, PropICTEnablementTimestamp, PropRowTrackingSuspended,
		PropMaterializedRowID, PropMaterializedRowCommitVersion,
		"delta.requireCheckpointProtectionBeforeVersion", "delta.lastCommitTimestamp", "delta.lastUpdateVersion")...)
	specs = append(specs, refused("the protocol follows from the table's features: set a feature's delta.enable* property or "+
		PropFeaturePrefix+"<name> = supported instead", "delta.minReaderVersion", "delta.minWriterVersion")...)
	specs = append(specs, refused("this engine does not write Iceberg or Hudi metadata",
		"delta.universalFormat.enabledFormats", "delta.universalFormat.iceberg.atomicConversion.supported",
		"delta.castIcebergTimeType", "delta.ignoreIcebergBucketPartition")...)
	specs = append(specs, refused("this engine does not support it",
		"delta.enableMaterializePartitionColumnsFeature", "delta.writePartitionColumnsToParquet", "delta.parquet.format.version",
		"delta.coordinatedCommits.commitCoordinator-preview", "delta.coordinatedCommits.commitCoordinatorConf-preview",
		"delta.coordinatedCommits.tableConf-preview", "delta.redirectReaderWriter-preview", "delta.redirectWriterOnly-preview")...)
	m := make(map[string]propSpec, len(specs))
	for _, s := range specs {
		m[strings.ToLower(s.key)] = s
	}
	return m
}()

const refusedMaintained = "the engine maintains it"

func choice(key string, feature func(string) string, values ...string) propSpec {
	return propSpec{key: key, accepts: oneOf(values...), feature: feature, values: values}
}

// oneOf accepts the values listed, case-insensitively, as Spark parses
// booleans and modes.
func oneOf(values ...string) func(string) string {
	return func(v string) string {
		for _, a := range values {
			if strings.EqualFold(v, a) {
				return ""
			}
		}
		return strings.Join(values, " or ")
	}
}

// onValue names feature for the values listed, "" for any other.
func onValue(feature string, values ...string) func(string) string {
	return func(v string) string {
		for _, a := range values {
			if strings.EqualFold(strings.TrimSpace(v), a) {
				return feature
			}
		}
		return ""
	}
}

func interval(v string) string {
	if _, err := ParseInterval(v); err != nil {
		return `an interval such as "interval 7 days" (units up to weeks; no months or years)`
	}
	return ""
}

// featureRequest is a table feature that a table property asks for.
type featureRequest struct {
	Feature  string
	Property string // "key = value"
}

// propertyFeatures lists the features property values ask for, leniently:
// it is also applied to configurations already in tables.
func propertyFeatures(props map[string]string) []featureRequest {
	var out []featureRequest
	for _, k := range slices.Sorted(maps.Keys(props)) {
		v := props[k]
		lk := strings.ToLower(strings.TrimSpace(k))
		if name, ok := strings.CutPrefix(lk, PropFeaturePrefix); ok {
			if oneOf("supported", "enabled")(strings.TrimSpace(v)) == "" {
				if known, ok := featureNamed(name); ok {
					name = known
				}
				out = append(out, featureRequest{name, k + " = " + v})
			}
			continue
		}
		if spec, ok := tableProps[lk]; ok && spec.feature != nil {
			if f := spec.feature(v); f != "" {
				out = append(out, featureRequest{f, spec.key + " = " + v})
			}
		}
	}
	return out
}

// CheckProperties validates table properties given for a new table, a
// replacement or a change, as Delta Spark does: every delta.* key must be
// one Delta knows, with a value it accepts; delta.feature.<name> must name
// a known feature, with the value supported; CHECK constraints
// (delta.constraints.*) are refused as properties: a constraint is added
// as Spark's ALTER TABLE ADD CONSTRAINT adds it, after checking the rows
// the table holds. Other keys are free. Errors name the key and what is accepted.
//
// It returns the configuration to store, Delta's keys and fixed values
// (true, name, v2) in their canonical spelling, and the protocol-only delta.feature.* and
// delta.ignoreProtocolDefaults removed (as Spark stores them), and the
// table features the properties need. A needed feature writable reports
// false for is refused, naming the property: a table must never carry a
// property whose feature no writer here honours.
func CheckProperties(props map[string]string, writable func(feature string) bool) (map[string]string, []string, error) {
	out := make(map[string]string, len(props))
	for _, k := range slices.Sorted(maps.Keys(props)) {
		v := props[k]
		lk := strings.ToLower(strings.TrimSpace(k))
		switch {
		case IsConstraintKey(lk):
			return nil, nil, errs.New(errs.InvalidArgument, "", "table property %s: CHECK constraints are not set as properties (adding one must first check the table's rows, as ALTER TABLE ADD CONSTRAINT does); remove the property", k)
		case strings.HasPrefix(lk, PropFeaturePrefix):
			if _, known := featureNamed(lk[len(PropFeaturePrefix):]); !known {
				return nil, nil, errs.New(errs.InvalidArgument, "", "table property %s names no table feature this engine knows (known: %s)", k, strings.Join(knownFeatures(), ", "))
			}
			if oneOf("supported", "enabled")(v) != "" {
				return nil, nil, errs.New(errs.InvalidArgument, "", "table property %s = %q is not valid: use supported", k, v)
			}
		case strings.HasPrefix(lk, "delta."):
			spec, known := tableProps[lk]
			switch {
			case !known:
				return nil, nil, errs.New(errs.InvalidArgument, "", "unknown table property %s%s; Delta refuses unknown delta.* keys (keys without the delta. prefix are free)", k, didYouMean(lk))
			case spec.refused != "":
				return nil, nil, errs.New(errs.InvalidArgument, "", "table property %s cannot be set: %s", spec.key, spec.refused)
			}
			if want := spec.accepts(v); want != "" {
				return nil, nil, errs.New(errs.InvalidArgument, "", "table property %s = %q is not valid: use %s", spec.key, v, want)
			}
			for _, c := range spec.values {
				if strings.EqualFold(v, c) {
					v = c
				}
			}
			if spec.key != PropIgnoreProtocolDefaults {
				out[spec.key] = v
			}
		default:
			out[k] = v
		}
	}
	if err := checkRetentions(out); err != nil {
		return nil, nil, err
	}
	var features []string
	for _, r := range propertyFeatures(props) {
		if !writable(r.Feature) {
			return nil, nil, errs.New(errs.UnsupportedTable, "", "table property %s needs the %s table feature, which this engine cannot write (%s); remove the property",
				r.Property, r.Feature, unwritableReason(r.Feature))
		}
		features = append(features, r.Feature)
	}
	sort.Strings(features)
	return out, slices.Compact(features), nil
}

// checkRetentions is Delta Spark's rule that the log outlives removed
// files: delta.logRetentionDuration >= delta.deletedFileRetentionDuration,
// checked when either is given (delta-rs does not check it; Spark 4 refuses
// such a table). The error names both values, a default as such, and what
// to change, on the side of the property given.
func checkRetentions(props Properties) error {
	logText, logGiven := props[PropLogRetentionDuration]
	filesText, filesGiven := props[PropDeletedFileRetention]
	if !logGiven && !filesGiven {
		return nil
	}
	logs, err1 := props.LogRetention()
	files, err2 := props.DeletedFileRetention()
	if err1 != nil || err2 != nil || logs >= files {
		return nil
	}
	if !logGiven {
		logText = DefaultLogRetention
	}
	if !filesGiven {
		filesText = DefaultDeletedFileRetention
	}
	shown := func(v string, given bool) string {
		if given {
			return v
		}
		return v + ", the default"
	}
	if logGiven {
		return errs.New(errs.InvalidArgument, "", "table property %s (%s) must be at least %s (%s), or the log forgets versions whose removed files are still kept: raise %s to at least %s, or set %s to at most %s",
			PropLogRetentionDuration, shown(logText, logGiven), PropDeletedFileRetention, shown(filesText, filesGiven),
			PropLogRetentionDuration, filesText, PropDeletedFileRetention, logText)
	}
	return errs.New(errs.InvalidArgument, "", "table property %s (%s) must be at most %s (%s), or the log forgets versions whose removed files are still kept: lower %s to at most %s, or set %s to at least %s",
		PropDeletedFileRetention, filesText, PropLogRetentionDuration, shown(logText, false),
		PropDeletedFileRetention, logText, PropLogRetentionDuration, filesText)
}

func unwritableReason(feature string) string {
	switch feature {
	case "rowTracking":
		return "it does not assign row ids and row commit versions"
	case "icebergCompatV1", "icebergCompatV2", "icebergCompatV3":
		return "it does not keep a table Iceberg-compatible"
	}
	return "it does not implement what the feature asks of writers"
}

// featureNamed resolves a feature name case-insensitively, as Spark does.
func featureNamed(name string) (string, bool) {
	for f := range featureInfo {
		if strings.EqualFold(f, name) {
			return f, true
		}
	}
	return "", false
}

func knownFeatures() []string {
	return slices.Sorted(maps.Keys(featureInfo))
}

// didYouMean suggests the known key closest to an unknown one, when close.
func didYouMean(lk string) string {
	best, bestD := "", 4
	for k, s := range tableProps {
		if d := editdist.Distance(lk, k); d < bestD && s.refused == "" {
			best, bestD = s.key, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// CanonicalKey is Delta's spelling of a delta.* key it knows (Spark
// matches them case-insensitively); other keys as given.
func CanonicalKey(key string) string {
	if spec, ok := tableProps[strings.ToLower(strings.TrimSpace(key))]; ok {
		return spec.key
	}
	return key
}

// EngineMaintained reports a property the engine sets itself (column
// mapping's maxColumnId, in-commit timestamp enablement): a commit may
// change it without the validation CheckProperties applies to user input.
func EngineMaintained(key string) bool {
	spec, ok := tableProps[strings.ToLower(key)]
	return ok && spec.refused == refusedMaintained
}

// IsConstraintKey reports whether a table property key holds a CHECK
// constraint (delta.constraints.<name>, any case).
func IsConstraintKey(k string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(k)), "delta.constraints.")
}
