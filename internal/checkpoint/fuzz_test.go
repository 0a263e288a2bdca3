package checkpoint

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/corpus"
)

// FuzzReadParquet: any bytes under a checkpoint name read without a panic,
// to actions or to a corrupt-table error.
func FuzzReadParquet(f *testing.F) {
	for _, rel := range []string{
		"dat/with_checkpoint/delta/_delta_log/00000000000000000002.checkpoint.parquet",
		"delta-rs/delta-0.2.0/_delta_log/00000000000000000003.checkpoint.parquet",
	} {
		data, err := os.ReadFile(corpus.Path(f, rel))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(data[:len(data)*2/3])
	}
	f.Add([]byte("PAR1PAR1"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const key = "_delta_log/00000000000000000001.checkpoint.parquet"
		st := storage.NewMemory()
		if err := st.PutIfAbsent(context.Background(), key, data); err != nil {
			t.Fatal(err)
		}
		err := readStore(context.Background(), st, []storage.ObjectInfo{{Key: key}}, func(protocol.Action) error { return nil })
		if err != nil && !errors.Is(err, errs.ErrCorruptTable) {
			t.Fatalf("not a corrupt-table error: %v", err)
		}
	})
}

// FuzzDecodeLastCheckpoint: any bytes decode or fail with a corrupt-table
// error; what decodes re-encodes to a file that decodes the same.
func FuzzDecodeLastCheckpoint(f *testing.F) {
	f.Add([]byte(`{"version":10,"size":13,"parts":2,"sizeInBytes":5,"numOfAddFiles":3}`))
	f.Add([]byte(`{"size":4,"size_in_bytes":41898,"version":2}`))
	f.Add([]byte(`{"version":1,"parts":null,"checksum":"6a92d155a59bf2eecbd4b4ec7fd1f875","k":[1,{"a":"b c"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lc, err := DecodeLastCheckpoint(data)
		if err != nil {
			if !errors.Is(err, errs.ErrCorruptTable) {
				t.Fatalf("not a corrupt-table error: %v", err)
			}
			return
		}
		b, err := EncodeLastCheckpoint(lc)
		if err != nil {
			t.Fatal(err)
		}
		back, err := DecodeLastCheckpoint(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		back.Checksum, lc.Checksum = "", ""
		if back.Version != lc.Version || back.Size != lc.Size || back.SizeInBytes != lc.SizeInBytes || back.NumOfAddFiles != lc.NumOfAddFiles ||
			(back.Parts == nil) != (lc.Parts == nil) || back.Parts != nil && *back.Parts != *lc.Parts {
			t.Fatalf("%+v re-encoded as %+v", lc, back)
		}
	})
}
