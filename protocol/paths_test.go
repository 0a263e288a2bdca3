package protocol

import (
	"errors"
	"testing"
)

func TestObjectKey(t *testing.T) {
	cases := []struct {
		root, p, key string // key "" means refused
	}{
		{"file:///data/t", "part-0.parquet", "part-0.parquet"},
		{"file:///data/t", "day=2026-01-01/part-0.parquet", "day=2026-01-01/part-0.parquet"},
		{"file:///data/t", "a%20b/x%25y.parquet", "a b/x%y.parquet"},
		{"file:///data/t", "file:/data/t/x.bin", "x.bin"},
		{"file:///data/t", "file:///data/t/a/x.bin", "a/x.bin"},
		{"file:///data/t", "file://localhost/data/t/x.bin", "x.bin"},
		{"file:///data/t/", "file:/data/t/x.bin", "x.bin"},
		{"file:///data/t%20x", "file:/data/t%20x/x%25y.bin", "x%y.bin"},
		{"s3://bucket/t", "s3a://bucket/t/x.bin", "x.bin"},
		{"s3://bucket/t", "S3://BUCKET/t/x.bin", "x.bin"},
		{"s3://bucket/t", "s3n://bucket/t/d/x.bin", "d/x.bin"},
		{"file:///data/t", "../x.parquet", ""},
		{"file:///data/t", "a/../../x.parquet", ""},
		{"file:///data/t", "bad%zz.parquet", ""},
		{"file:///data/t", "file:/data/tt/x.bin", ""},
		{"file:///data/t", "file:/data/t/../u/x.bin", ""},
		{"file:///data/t", "file:/data/t", ""},
		{"file:///data/t", "/data/t/x.bin", ""},
		{"file:///data/t", "file://otherhost/data/t/x.bin", ""},
		{"s3://bucket/t", "s3://other/t/x.bin", ""},
		{"s3://bucket/t", "gs://bucket/t/x.bin", ""},
		{"memory://m", "file:/x.bin", ""},
	}
	for _, c := range cases {
		key, err := ObjectKey(c.root, c.p)
		if c.key == "" {
			if err == nil {
				t.Errorf("%s under %s = %q; want an error", c.p, c.root, key)
			}
			continue
		}
		if err != nil || key != c.key {
			t.Errorf("%s under %s = %q, %v; want %q", c.p, c.root, key, err, c.key)
		}
	}
	if _, err := ObjectKey("s3://bucket/t", "s3://other/t/x.bin"); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("another bucket: want ErrOutsideRoot, got %v", err)
	}
}

func TestHasScheme(t *testing.T) {
	for p, want := range map[string]bool{
		"s3://b/k": true, "file:/x": true, "abfss://c@a/x": true, "x+y.z-1:rest": true,
		"part-0.parquet": false, "day=2026-01-01T10:00/x": false, ":x": false, "1a:/x": false, "/abs/x": false,
	} {
		if got := HasScheme(p); got != want {
			t.Errorf("HasScheme(%q) = %v, want %v", p, got, want)
		}
	}
}
