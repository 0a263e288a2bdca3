package checkpoint

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

func readBytes(t *testing.T, key string, data []byte) error {
	t.Helper()
	st := storage.NewMemory()
	if err := st.Put(context.Background(), key, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	return readStore(context.Background(), st, []storage.ObjectInfo{{Key: key, Size: int64(len(data))}}, func(protocol.Action) error { return nil })
}

func wantCorrupt(t *testing.T, what, key string, err error) {
	t.Helper()
	if !errors.Is(err, errs.ErrCorruptTable) {
		t.Errorf("%s: want a corrupt-table error, got %v", what, err)
		return
	}
	if !strings.Contains(err.Error(), key) {
		t.Errorf("%s: error does not name %s: %v", what, key, err)
	}
}

// A checkpoint cut short, with a broken footer or magic, or no Parquet at
// all, is reported as a corrupt table naming the file.
func TestReadDamagedParquet(t *testing.T) {
	_, root := table(t, "delta-rs/table-with-domain-metadata")
	orig, err := os.ReadFile(filepath.Join(root, "_delta_log", "00000000000000000108.checkpoint.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	const key = "_delta_log/00000000000000000108.checkpoint.parquet"
	badMagic := bytes.Clone(orig)
	copy(badMagic[len(badMagic)-4:], "XXXX")
	badFooterLen := bytes.Clone(orig)
	copy(badFooterLen[len(badFooterLen)-8:], []byte{0xff, 0xff, 0xff, 0x7f})
	badFooter := bytes.Clone(orig)
	for i := len(badFooter) - 200; i < len(badFooter)-8; i++ {
		badFooter[i] ^= 0x5a
	}
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"half", orig[:len(orig)/2]},
		{"all but the last byte", orig[:len(orig)-1]},
		{"footer only", orig[len(orig)/2:]},
		{"empty", nil},
		{"magic only", []byte("PAR1")},
		{"bad magic", badMagic},
		{"bad footer length", badFooterLen},
		{"scrambled footer", badFooter},
		{"JSON in a parquet name", []byte(`{"add":{"path":"a"}}`)},
	} {
		wantCorrupt(t, c.name, key, readBytes(t, key, c.data))
	}

	// The same on disk: a copy of the table's log with the checkpoint cut
	// in half.
	dir := t.TempDir()
	copyTree(t, filepath.Join(root, "_delta_log"), filepath.Join(dir, "_delta_log"))
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(key)), orig[:len(orig)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	err = readStore(context.Background(), st, []storage.ObjectInfo{{Key: key}}, func(protocol.Action) error { return nil })
	wantCorrupt(t, "half on disk", key, err)
}

// Flipping bytes anywhere in a checkpoint never panics: the read either
// succeeds (the damage hit unused bytes or produced other values) or fails
// with a corrupt-table error.
func TestReadScrambledParquetNeverPanics(t *testing.T) {
	_, root := table(t, "dat/with_checkpoint/delta")
	orig, err := os.ReadFile(filepath.Join(root, "_delta_log", "00000000000000000002.checkpoint.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	const key = "_delta_log/00000000000000000002.checkpoint.parquet"
	step := len(orig)/120 + 1
	for pos := 0; pos < len(orig); pos += step {
		for _, mask := range []byte{0xff, 0x01} {
			data := bytes.Clone(orig)
			data[pos] ^= mask
			if err := readBytes(t, key, data); err != nil && !errors.Is(err, errs.ErrCorruptTable) {
				t.Errorf("byte %d ^ %#x: %v", pos, mask, err)
			}
		}
	}
}

func TestReadDamagedJSON(t *testing.T) {
	_, root := table(t, "golden/v2-checkpoint-json/delta")
	name := "00000000000000000002.checkpoint.6374b053-df23-479b-b2cf-c9c550132b49.json"
	orig, err := os.ReadFile(filepath.Join(root, "_delta_log", name))
	if err != nil {
		t.Fatal(err)
	}
	key := "_delta_log/" + name
	wantCorrupt(t, "half", key, readBytes(t, key, orig[:len(orig)/2]))
	wantCorrupt(t, "not JSON", key, readBytes(t, key, []byte("PAR1\x00\x01")))
}
