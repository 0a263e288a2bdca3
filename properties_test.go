package deltalite_test

import (
	"context"
	"testing"

	"github.com/deltalite-go/deltalite"
)

func TestSetProperties(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := deltalite.Write(ctx, dir, people(t, []int64{1}, []string{"a"}, []string{"d1"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend}); err != nil {
		t.Fatal(err)
	}
	tb, err := deltalite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := tb.SetProperties(ctx, map[string]string{"delta.appendOnly": "true", "owner": "team"}, deltalite.PropertiesOptions{CommitMetadata: map[string]any{"who": "me"}}); err != nil {
		t.Fatal(err)
	}
	if tb.Version() != 1 {
		t.Fatalf("version %d", tb.Version())
	}
	re, err := deltalite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if p := re.Metadata().Configuration; p["delta.appendOnly"] != "true" || p["owner"] != "team" {
		t.Fatalf("properties %v", p)
	}
	if !re.Protocol().HasFeature("appendOnly") && re.Protocol().MinWriterVersion < 2 {
		t.Fatalf("protocol %v lacks appendOnly", re.Protocol())
	}
	h, err := re.History(ctx, 1)
	if err != nil || h[0].Info.Operation != "SET TBLPROPERTIES" || h[0].Info.Raw["who"] != "me" {
		t.Fatalf("history %+v %v", h, err)
	}
	// The data is untouched, and appendOnly now holds.
	if got := readRows(t, dir); len(got) != 1 {
		t.Fatalf("rows %v", got)
	}
	if _, err := re.Write(ctx, people(t, []int64{2}, []string{"b"}, []string{"d1"}), deltalite.WriteOptions{Mode: deltalite.ModeOverwrite}); err == nil {
		t.Fatal("an overwrite of an appendOnly table passed")
	}
	// The same values again commit nothing.
	if err := re.SetProperties(ctx, map[string]string{"owner": "team"}, deltalite.PropertiesOptions{}); err != nil || re.Version() != 1 {
		t.Fatalf("version %d, %v", re.Version(), err)
	}
	// Column mapping is refused; a bad value is refused; nothing commits.
	if err := re.SetProperties(ctx, map[string]string{"delta.columnMapping.mode": "name"}, deltalite.PropertiesOptions{}); err == nil {
		t.Fatal("column mapping change passed")
	}
	if err := re.SetProperties(ctx, map[string]string{"delta.appendOnly": "maybe"}, deltalite.PropertiesOptions{}); err == nil {
		t.Fatal("a bad value passed")
	}
	if re.Version() != 1 {
		t.Fatalf("version %d after refusals", re.Version())
	}
}

// TestSetFeatureProperty: delta.feature.<name> = supported on an existing
// table adds the feature to its protocol in one commit, as Spark's SET
// TBLPROPERTIES does; set again, it commits nothing.
func TestSetFeatureProperty(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := deltalite.Write(ctx, dir, people(t, []int64{1}, []string{"a"}, []string{"d1"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend}); err != nil {
		t.Fatal(err)
	}
	tb := openT(t, dir)
	for pass := range 2 {
		if err := tb.SetProperties(ctx, map[string]string{"delta.feature.timestampNtz": "supported"}, deltalite.PropertiesOptions{}); err != nil {
			t.Fatal(err)
		}
		if tb.Version() != 1 || !openT(t, dir).Snapshot().Protocol().HasFeature("timestampNtz") {
			t.Fatalf("pass %d: version %d, protocol %v", pass, tb.Version(), openT(t, dir).Snapshot().Protocol())
		}
	}
}
