package storage

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestDirectWrites round-trips objects whose sizes straddle the direct I/O
// block and the copy unit, written directly and through the cache, and
// checks that a failure at any point leaves neither object nor temporary.
func TestDirectWrites(t *testing.T) {
	ctx := t.Context()
	for _, cached := range []bool{false, true} {
		dir := t.TempDir()
		l, err := NewLocalWith(dir, LocalOptions{CachedWrites: cached})
		if err != nil {
			t.Fatal(err)
		}
		probe, err := l.create(ctx, "probe")
		if err != nil {
			t.Fatal(err)
		}
		align := probe.align
		probe.Abort()
		switch {
		case cached && align != 0:
			t.Fatalf("CachedWrites store writes directly (align %d)", align)
		case !cached && align == 0:
			t.Logf("%s has no direct I/O: only the cached path is tested", dir)
			continue
		}
		block := max(align, 4096)
		sizes := []int{0, 1, block - 1, block, block + 1, copyBufSize - 1, copyBufSize, copyBufSize + 1,
			2*copyBufSize + block + 3, 3 * copyBufSize}
		rng := rand.New(rand.NewPCG(1, 2))
		for _, n := range sizes {
			data := make([]byte, n)
			for i := range data {
				data[i] = byte(rng.Uint32())
			}
			// A reader handing out odd-sized pieces, as a pipe from an encoder does.
			if err := l.Put(ctx, "d/obj", &choppy{r: bytes.NewReader(data), rng: rng}); err != nil {
				t.Fatalf("cached=%v size %d: %v", cached, n, err)
			}
			got, err := os.ReadFile(filepath.Join(dir, "d", "obj"))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("cached=%v size %d: read back %d bytes (%v)", cached, n, len(got), err)
			}
		}
		for _, n := range []int{0, block / 2, copyBufSize, copyBufSize + block, 2*copyBufSize + 1} {
			err := l.Put(ctx, "f/obj", io.MultiReader(bytes.NewReader(make([]byte, n)), failing{}))
			if !errors.Is(err, errFailing) {
				t.Fatalf("cached=%v failing after %d bytes: Put = %v", cached, n, err)
			}
			if entries, _ := os.ReadDir(filepath.Join(dir, "f")); len(entries) != 0 {
				t.Fatalf("cached=%v failing after %d bytes left %v", cached, n, entries[0].Name())
			}
		}
	}
}

type choppy struct {
	r   io.Reader
	rng *rand.Rand
}

func (c *choppy) Read(p []byte) (int, error) {
	return c.r.Read(p[:min(len(p), 1+c.rng.IntN(300_000))])
}

var errFailing = errors.New("source failed")

type failing struct{}

func (failing) Read([]byte) (int, error) { return 0, errFailing }
