package checkpoint

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/testkit/corpus"
)

func TestCanonicalJSONSpecVector(t *testing.T) {
	in := `{"k0":"'v 0'", "checksum": "adsaskfljadfkjadfkj", "k1":{"k2": 2, "k3": ["v3", [1, 2], {"k4": "v4", "k5": ["v5", "v6", "v7"]}]}}`
	want := `"k0"="%27v%200%27","k1"+"k2"=2,"k1"+"k3"+0="v3","k1"+"k3"+1+0=1,"k1"+"k3"+1+1=2,"k1"+"k3"+2+"k4"="v4","k1"+"k3"+2+"k5"+0="v5","k1"+"k3"+2+"k5"+1="v6","k1"+"k3"+2+"k5"+2="v7"`
	got, err := canonicalJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("canonical form\n got %s\nwant %s", got, want)
	}
	sum, err := jsonChecksum([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if sum != "6a92d155a59bf2eecbd4b4ec7fd1f875" {
		t.Fatalf("checksum %s", sum)
	}
}

// Every _last_checkpoint in the corpus that carries a checksum (written by
// Spark) must verify, and the lenient fields must decode.
func TestDecodeLastCheckpointCorpus(t *testing.T) {
	root := corpus.Path(t, "")
	files, _ := filepath.Glob(filepath.Join(root, "*", "*", "_delta_log", "_last_checkpoint"))
	more, _ := filepath.Glob(filepath.Join(root, "*", "*", "delta", "_delta_log", "_last_checkpoint"))
	files = append(files, more...)
	if len(files) < 20 {
		t.Skipf("conformance corpus not found (%d files)", len(files))
	}
	withSum := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lc, err := DecodeLastCheckpoint(data)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if lc.Checksum != "" {
			withSum++
		}
	}
	if withSum < 10 {
		t.Errorf("only %d files with a checksum verified", withSum)
	}
}

func TestDecodeLastCheckpointLenient(t *testing.T) {
	lc, err := DecodeLastCheckpoint([]byte(`{"size":4,"size_in_bytes":41898,"version":2}`))
	if err != nil || lc.Version != 2 || lc.Size != 4 || lc.SizeInBytes != 41898 || lc.Parts != nil {
		t.Fatalf("%+v %v", lc, err)
	}
	lc, err = DecodeLastCheckpoint([]byte(`{"version":2,"size":15330,"parts":null}`))
	if err != nil || lc.Version != 2 || lc.Size != 15330 || lc.Parts != nil {
		t.Fatalf("%+v %v", lc, err)
	}
	lc, err = DecodeLastCheckpoint([]byte(`{"version":5,"size":7,"parts":3,"numOfAddFiles":5,"v2Checkpoint":{"path":"x"},"tags":{"a":"b"}}`))
	if err != nil || lc.Parts == nil || *lc.Parts != 3 || lc.NumOfAddFiles != 5 {
		t.Fatalf("%+v %v", lc, err)
	}
	for _, bad := range []string{``, `[]`, `{"size":3}`, `{"version":"x","size":1}`, `{"version":-1}`, `{"version":1,"size":2,"checksum":"00000000000000000000000000000000"}`} {
		_, err := DecodeLastCheckpoint([]byte(bad))
		if !errors.Is(err, errs.ErrCorruptTable) || !strings.Contains(err.Error(), "_last_checkpoint") {
			t.Errorf("%q: want a corrupt-table error naming the file, got %v", bad, err)
		}
	}
}

func TestEncodeLastCheckpointRoundTrip(t *testing.T) {
	parts := 2
	in := LastCheckpoint{Version: 10, Size: 13, Parts: &parts, SizeInBytes: 1234, NumOfAddFiles: 11}
	b, err := EncodeLastCheckpoint(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := DecodeLastCheckpoint(b)
	if err != nil {
		t.Fatal(err)
	}
	if out.Checksum == "" || out.Version != 10 || out.Size != 13 || *out.Parts != 2 || out.SizeInBytes != 1234 || out.NumOfAddFiles != 11 {
		t.Fatalf("round trip: %s -> %+v", b, out)
	}
	// Tampering is detected.
	bad := strings.Replace(string(b), `"size":13`, `"size":14`, 1)
	if _, err := DecodeLastCheckpoint([]byte(bad)); !errors.Is(err, errs.ErrCorruptTable) {
		t.Fatalf("tampered file accepted: %v", err)
	}
}
