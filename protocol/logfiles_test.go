package protocol

import (
	"testing"
	"time"
)

func TestParseLogFile(t *testing.T) {
	cases := []struct {
		key  string
		want LogFile
	}{
		{"_delta_log/00000000000000000007.json", LogFile{Kind: CommitFile, Version: 7}},
		{"_delta_log/00000000000000000010.checkpoint.parquet", LogFile{Kind: CheckpointFile, Version: 10}},
		{"_delta_log/00000000000000000010.checkpoint.0000000002.0000000003.parquet", LogFile{Kind: MultiPartCheckpoint, Version: 10, Part: 2, Parts: 3}},
		{"_delta_log/00000000000000000006.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json", LogFile{Kind: V2Checkpoint, Version: 6}},
		{"_delta_log/00000000000000000006.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.parquet", LogFile{Kind: V2Checkpoint, Version: 6}},
		{"_delta_log/.00000000000000000000.json.crc", LogFile{}},
		{"_delta_log/00000000000000000000.crc", LogFile{}},
		{"_delta_log/_last_checkpoint", LogFile{}},
		{"_delta_log/00000000000000000001.00000000000000000003.compacted.json", LogFile{}},
		{"_delta_log/_sidecars/00000000000000000006.checkpoint.parquet", LogFile{}},
		{"_delta_log/0000000000000000000a.json", LogFile{}},
		{"_delta_log/00000000000000000010.checkpoint.0000000004.0000000003.parquet", LogFile{}},
		{"other/00000000000000000001.json", LogFile{}},
		{"_delta_log/.deltalite-tmp-abc", LogFile{}},
	}
	for _, c := range cases {
		if got := ParseLogFile(c.key); got != c.want {
			t.Errorf("ParseLogFile(%q) = %+v, want %+v", c.key, got, c.want)
		}
	}
	if CommitKey(12) != "_delta_log/00000000000000000012.json" {
		t.Errorf("CommitKey(12) = %q", CommitKey(12))
	}
}

func TestReconcile(t *testing.T) {
	commit := func(lines string) []Action {
		a, err := DecodeCommit([]byte(lines))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	s := NewState("file:///tables/t")
	log := [][]Action{
		commit(`{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}
{"metaData":{"id":"a","format":{"provider":"parquet"},"schemaString":"{\"type\":\"struct\",\"fields\":[]}","partitionColumns":[],"configuration":{}}}
{"add":{"path":"a%20b.parquet","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}}
{"add":{"path":"c.parquet","partitionValues":{},"size":1,"modificationTime":1,"dataChange":true}}
{"txn":{"appId":"app","version":3}}
{"domainMetadata":{"domain":"d1","configuration":"{}","removed":false}}`),
		// the same file under another spelling is removed; c gets a DV (remove + add with DV)
		commit(`{"remove":{"path":"file:///tables/t/a b.parquet","deletionTimestamp":2,"dataChange":true}}
{"remove":{"path":"c.parquet","deletionTimestamp":2,"dataChange":true}}
{"add":{"path":"c.parquet","partitionValues":{},"size":1,"modificationTime":2,"dataChange":true,"deletionVector":{"storageType":"u","pathOrInlineDv":"ab^-aqEH.-t@S}K{vb[*k^","offset":1,"sizeInBytes":36,"cardinality":2}}}
{"txn":{"appId":"app","version":4}}
{"domainMetadata":{"domain":"d1","configuration":"","removed":true}}
{"unknownAction":{"x":1}}`),
	}
	for _, c := range log {
		for i := range c {
			s.Apply(&c[i])
		}
	}
	files := s.Files()
	if len(files) != 1 || files[0].Path != "c.parquet" || files[0].DeletionVector == nil || files[0].DeletionVector.Cardinality != 2 {
		t.Fatalf("files = %+v", files)
	}
	if got := len(s.Tombstones()); got != 2 {
		t.Errorf("tombstones = %d, want 2", got)
	}
	if s.Txns["app"].Version != 4 {
		t.Errorf("txn version = %d", s.Txns["app"].Version)
	}
	if _, ok := s.Domains["d1"]; ok {
		t.Errorf("removed domain still present")
	}
}

func TestDecodeCommitErrors(t *testing.T) {
	for _, bad := range []string{
		"{\"add\":{\"path\":\"x\"}}\n{not json",
		`{"add":{"partitionValues":{},"size":1}}`,
		`{"add":{"path":"x","size":"big"}}`,
		`[1,2]`,
		`{"add":{"path":"x","size":-1}}`,
		`{"txn":{"version":1}}`,
	} {
		if _, err := DecodeCommit([]byte(bad)); err == nil {
			t.Errorf("DecodeCommit(%q) succeeded", bad)
		}
	}
	if _, err := DecodeCommit([]byte("{\"add\":{\"path\":\"x\"}}\n{not json")); err == nil || err.Error()[:6] != "line 2" {
		t.Errorf("error should name line 2, got %v", err)
	}
}

func TestUnsupportedReaderFeatures(t *testing.T) {
	p := &Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"deletionVectors", "blahabl", "variantType"}}
	got := UnsupportedReaderFeatures(p)
	if len(got) != 2 || got[0] != "blahabl" || got[1] != "variantType" {
		t.Errorf("got %v", got)
	}
	if got := UnsupportedReaderFeatures(&Protocol{MinReaderVersion: 5}); len(got) != 1 || got[0] != "readerVersion 5" {
		t.Errorf("got %v", got)
	}
	if got := UnsupportedReaderFeatures(&Protocol{MinReaderVersion: 2, MinWriterVersion: 5}); len(got) != 0 {
		t.Errorf("got %v", got)
	}
	if !(&Protocol{MinReaderVersion: 1, MinWriterVersion: 4}).HasFeature("changeDataFeed") {
		t.Errorf("writer 4 implies changeDataFeed")
	}
}

func TestParseInterval(t *testing.T) {
	for s, want := range map[string]time.Duration{
		"interval 1 week":          7 * 24 * time.Hour,
		"interval 30 days":         30 * 24 * time.Hour,
		"2 hours":                  2 * time.Hour,
		"INTERVAL 1 day 12 hours":  36 * time.Hour,
		"interval 100 millisecond": 100 * time.Millisecond,
	} {
		if got, err := ParseInterval(s); err != nil || got != want {
			t.Errorf("ParseInterval(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, bad := range []string{"", "interval", "1 fortnight", "interval x days", "-1 days"} {
		if _, err := ParseInterval(bad); err == nil {
			t.Errorf("ParseInterval(%q) succeeded", bad)
		}
	}
	p := Properties{PropCheckpointInterval: "10"}
	if n, _ := p.CheckpointInterval(); n != 10 {
		t.Errorf("checkpoint interval %d", n)
	}
	if n, _ := (Properties{}).CheckpointInterval(); n != 100 {
		t.Errorf("default checkpoint interval %d", n)
	}
	if _, err := (Properties{PropCheckpointInterval: "x"}).CheckpointInterval(); err == nil {
		t.Errorf("bad interval accepted")
	}
}

func TestEncodeKeepsRequiredEmptyFields(t *testing.T) {
	ext := true
	b, err := EncodeCommit([]Action{
		{Protocol: &Protocol{MinReaderVersion: 3, MinWriterVersion: 7}},
		{Protocol: &Protocol{MinReaderVersion: 1, MinWriterVersion: 2}},
		{Remove: &Remove{Path: "a", DataChange: true, ExtendedFileMetadata: &ext, PartitionValues: map[string]string{}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"protocol":{"minReaderVersion":3,"minWriterVersion":7,"readerFeatures":[],"writerFeatures":[]}}
{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}
{"remove":{"path":"a","dataChange":true,"extendedFileMetadata":true,"partitionValues":{}}}
`
	if string(b) != want {
		t.Errorf("got\n%s\nwant\n%s", b, want)
	}
}

func TestMinimalProtocol(t *testing.T) {
	cases := []struct {
		features []string
		want     string
	}{
		{nil, "r1/w2"},
		{[]string{"appendOnly"}, "r1/w2"},
		{[]string{"changeDataFeed"}, "r1/w4"},
		{[]string{"columnMapping"}, "r2/w5"},
		{[]string{"timestampNtz"}, "r3/w7 [appendOnly, invariants, timestampNtz]"},
		{[]string{"inCommitTimestamp"}, "r1/w7 [appendOnly, inCommitTimestamp, invariants]"},
		{[]string{"deletionVectors", "columnMapping"}, "r3/w7 [appendOnly, columnMapping, deletionVectors, invariants]"},
	}
	for _, c := range cases {
		p := MinimalProtocol(c.features)
		if got := p.String(); got != c.want {
			t.Errorf("MinimalProtocol(%v) = %s, want %s", c.features, got, c.want)
		}
	}
}
