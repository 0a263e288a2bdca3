package checkpoint

import (
	"errors"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/storage"
)

func TestSidecarKey(t *testing.T) {
	st, err := storage.NewLocal("/data/my table")
	if err != nil {
		t.Fatal(err)
	}
	const cp = "_delta_log/00000000000000000006.checkpoint.2a15d0c6.json"
	for _, c := range []struct {
		path, want string
		kind       *errs.Error
	}{
		{"00000000000000000006.checkpoint.0000000001.0000000002.19af.parquet", "_delta_log/_sidecars/00000000000000000006.checkpoint.0000000001.0000000002.19af.parquet", nil},
		{"a%20b.parquet", "_delta_log/_sidecars/a b.parquet", nil},
		{st.URL() + "/_delta_log/_sidecars/x.parquet", "_delta_log/_sidecars/x.parquet", nil},
		{"s3://elsewhere/t/_delta_log/_sidecars/x.parquet", "", errs.ErrUnsupportedTable},
		{"../../../../etc/passwd", "", errs.ErrCorruptTable},
		{"%zz", "", errs.ErrCorruptTable},
	} {
		got, err := sidecarKey(st.URL(), cp, c.path)
		if c.kind != nil {
			if !errors.Is(err, c.kind) {
				t.Errorf("%q: got %q, %v; want a %v error", c.path, got, err, c.kind.Kind)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: got %q, %v; want %q", c.path, got, err, c.want)
		}
	}
}
