package protocol

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// writableHere stands in for the transaction layer's writable features.
func writableHere(f string) bool {
	return slices.Contains([]string{"appendOnly", "invariants", "changeDataFeed", "columnMapping", "deletionVectors",
		"inCommitTimestamp", "typeWidening", "v2Checkpoint", "domainMetadata", "timestampNtz"}, f)
}

func TestCheckPropertiesRefuses(t *testing.T) {
	cases := []struct {
		props map[string]string
		kind  error
		want  []string // all named in the error
	}{
		{map[string]string{"delta.appendOnly": "maybe"}, errs.ErrInvalidArgument, []string{"delta.appendOnly", `"maybe"`, "true or false"}},
		{map[string]string{"delta.enableChangeDataFeed": "1"}, errs.ErrInvalidArgument, []string{"delta.enableChangeDataFeed", "true or false"}},
		{map[string]string{"delta.appendOnyl": "true"}, errs.ErrInvalidArgument, []string{"unknown table property delta.appendOnyl", "did you mean delta.appendOnly?"}},
		{map[string]string{"delta.frobnicate": "x"}, errs.ErrInvalidArgument, []string{"unknown table property delta.frobnicate", "without the delta. prefix are free"}},
		{map[string]string{"delta.checkpointInterval": "0"}, errs.ErrInvalidArgument, []string{"delta.checkpointInterval", "positive integer"}},
		{map[string]string{"delta.columnMapping.mode": "names"}, errs.ErrInvalidArgument, []string{"delta.columnMapping.mode", "none or name or id"}},
		{map[string]string{"delta.logRetentionDuration": "interval 1 month"}, errs.ErrInvalidArgument, []string{"delta.logRetentionDuration", "no months or years"}},
		// The log must outlive removed files, as Delta Spark requires;
		// a default is named with its value.
		{map[string]string{"delta.logRetentionDuration": "interval 2 days"}, errs.ErrInvalidArgument, []string{
			"delta.logRetentionDuration (interval 2 days) must be at least delta.deletedFileRetentionDuration (interval 1 week, the default)",
			"raise delta.logRetentionDuration to at least interval 1 week, or set delta.deletedFileRetentionDuration to at most interval 2 days"}},
		{map[string]string{"delta.deletedFileRetentionDuration": "interval 60 days"}, errs.ErrInvalidArgument, []string{
			"delta.deletedFileRetentionDuration (interval 60 days) must be at most delta.logRetentionDuration (interval 30 days, the default)",
			"lower delta.deletedFileRetentionDuration to at most interval 30 days, or set delta.logRetentionDuration to at least interval 60 days"}},
		{map[string]string{"delta.logRetentionDuration": "interval 3 days", "delta.deletedFileRetentionDuration": "interval 4 days"}, errs.ErrInvalidArgument, []string{
			"delta.logRetentionDuration (interval 3 days) must be at least delta.deletedFileRetentionDuration (interval 4 days)"}},
		{map[string]string{"delta.isolationLevel": "SnapshotIsolation"}, errs.ErrInvalidArgument, []string{"delta.isolationLevel", "Serializable or WriteSerializable"}},
		{map[string]string{"delta.columnMapping.maxColumnId": "7"}, errs.ErrInvalidArgument, []string{"delta.columnMapping.maxColumnId cannot be set", "engine maintains"}},
		{map[string]string{"delta.minWriterVersion": "7"}, errs.ErrInvalidArgument, []string{"delta.minWriterVersion cannot be set", "delta.feature.<name> = supported"}},
		{map[string]string{"delta.constraints.pos": "id > 0"}, errs.ErrInvalidArgument, []string{"delta.constraints.pos", "CHECK constraints"}},
		{map[string]string{"delta.feature.bogus": "supported"}, errs.ErrInvalidArgument, []string{"delta.feature.bogus", "no table feature"}},
		{map[string]string{"delta.feature.deletionVectors": "on"}, errs.ErrInvalidArgument, []string{"delta.feature.deletionVectors", `"on"`, "use supported"}},
		{map[string]string{"delta.universalFormat.enabledFormats": "iceberg"}, errs.ErrInvalidArgument, []string{"delta.universalFormat.enabledFormats", "Iceberg"}},
		// Features no writer here honours are refused by property.
		{map[string]string{"delta.enableRowTracking": "true"}, errs.ErrUnsupportedTable, []string{"delta.enableRowTracking = true", "rowTracking table feature", "row ids"}},
		{map[string]string{"delta.feature.rowTracking": "supported"}, errs.ErrUnsupportedTable, []string{"delta.feature.rowTracking = supported", "rowTracking table feature"}},
		{map[string]string{"delta.enableIcebergCompatV2": "true"}, errs.ErrUnsupportedTable, []string{"delta.enableIcebergCompatV2 = true", "icebergCompatV2"}},
		{map[string]string{"delta.enableIcebergCompatV3": "TRUE"}, errs.ErrUnsupportedTable, []string{"icebergCompatV3"}},
		{map[string]string{"delta.feature.clustering": "supported"}, errs.ErrUnsupportedTable, []string{"clustering table feature"}},
	}
	for _, c := range cases {
		_, _, err := CheckProperties(c.props, writableHere)
		if !errors.Is(err, c.kind) {
			t.Errorf("%v: want %v, got %v", c.props, c.kind, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %q does not say %q", c.props, err, w)
			}
		}
	}
}

func TestCheckPropertiesAccepts(t *testing.T) {
	// Stored as given: valid values, canonical keys, free user keys.
	kept := map[string]string{
		"delta.enableTypeWidening":           "true",
		"delta.enableChangeDataCapture":      "true",
		"delta.enableRowTracking":            "false",
		"delta.enableIcebergCompatV2":        "false",
		"delta.logRetentionDuration":         "interval 60 days",
		"delta.deletedFileRetentionDuration": "interval 2 weeks",
		"delta.dataSkippingNumIndexedCols":   "-1",
		"delta.isolationLevel":               "WriteSerializable",
		"delta.columnMapping.mode":           "name",
		"owner":                              "team-a",
	}
	in := maps.Clone(kept)
	// Respelled, and protocol-only keys Spark does not store either.
	in["delta.APPENDONLY"] = "False"
	in["delta.feature.DELETIONVECTORS"] = "supported"
	in["delta.feature.v2Checkpoint"] = "enabled"
	in["delta.ignoreProtocolDefaults"] = "true"
	config, features, err := CheckProperties(in, writableHere)
	if err != nil {
		t.Fatal(err)
	}
	want := maps.Clone(kept)
	want["delta.appendOnly"] = "false"
	if !maps.Equal(config, want) {
		t.Errorf("config = %v\nwant %v", config, want)
	}
	if w := []string{"changeDataFeed", "columnMapping", "deletionVectors", "typeWidening", "v2Checkpoint"}; !slices.Equal(features, w) {
		t.Errorf("features = %v, want %v", features, w)
	}
	if p := MinimalProtocol(features); p.String() != "r3/w7 [appendOnly, changeDataFeed, columnMapping, deletionVectors, invariants, typeWidening, v2Checkpoint]" {
		t.Errorf("protocol %s", p.String())
	}
}

func TestRequiredFeaturesFromStoredConfig(t *testing.T) {
	got := RequiredFeatures(nil, map[string]string{
		PropEnableChangeDataFeed: "true", PropAppendOnly: "false", PropCheckpointPolicy: "V2",
		"delta.feature.deletionvectors": "supported", PropEnableTypeWidening: "true",
	})
	if w := []string{"changeDataFeed", "deletionVectors", "typeWidening", "v2Checkpoint"}; !slices.Equal(got, w) {
		t.Errorf("RequiredFeatures = %v, want %v", got, w)
	}
}

func TestEngineMaintained(t *testing.T) {
	for k, want := range map[string]bool{PropColumnMappingMaxID: true, PropICTEnablementVersion: true, PropAppendOnly: false, "owner": false} {
		if EngineMaintained(k) != want {
			t.Errorf("EngineMaintained(%s) = %v", k, !want)
		}
	}
}
