package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/storage"
)

// Harness describes the store under test.
type Harness struct {
	// New returns an empty store, a fresh one (or a fresh root) per call.
	New func(t *testing.T) storage.Store
	// Reopen gives the URI and storage options that open the same store
	// through storage.Open in another process. Nil skips the process race
	// (an in-memory store cannot be shared).
	Reopen func(t *testing.T, s storage.Store) (uri string, options map[string]string)
	// LargeSize is the size of the large upload; 0 means 40 MiB. Remote
	// stores should be opened with a multipart threshold well below it.
	LargeSize int64
	// CancelAfter is how much a cancelled upload sends before its context
	// ends; 0 means 12 MiB.
	CancelAfter int64
	// DeleteKeys is how many objects the batch-delete test writes and
	// deletes; 0 means 1100, more than one S3 DeleteObjects request.
	DeleteKeys int
}

// Run runs the whole suite as subtests of t.
func Run(t *testing.T, h Harness) {
	if h.LargeSize == 0 {
		h.LargeSize = 40 << 20
	}
	if h.CancelAfter == 0 {
		h.CancelAfter = 12 << 20
	}
	if h.DeleteKeys == 0 {
		h.DeleteKeys = 1100
	}
	t.Run("PutGetHead", func(t *testing.T) { testPutGetHead(t, h.New(t)) })
	t.Run("BadKeys", func(t *testing.T) { testBadKeys(t, h.New(t)) })
	t.Run("List", func(t *testing.T) { testList(t, h.New(t)) })
	t.Run("RangedRead", func(t *testing.T) { testRangedRead(t, h.New(t)) })
	t.Run("PutIfAbsent", func(t *testing.T) { testPutIfAbsent(t, h.New(t)) })
	t.Run("RaceGoroutines", func(t *testing.T) { testRaceGoroutines(t, h.New(t)) })
	t.Run("RaceProcesses", func(t *testing.T) {
		if h.Reopen == nil {
			t.Skip("store cannot be opened from another process")
		}
		s := h.New(t)
		uri, opts := h.Reopen(t, s)
		testRaceProcesses(t, s, uri, opts)
	})
	t.Run("LargePut", func(t *testing.T) { testLargePut(t, h.New(t), h.LargeSize) })
	t.Run("CancelledPut", func(t *testing.T) { testCancelledPut(t, h.New(t), h.CancelAfter) })
	t.Run("DeleteMany", func(t *testing.T) { testDeleteMany(t, h.New(t), h.DeleteKeys) })
}

func ctxFor(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func mustPut(t *testing.T, s storage.Store, key string, data []byte) {
	t.Helper()
	if err := s.Put(ctxFor(t), key, bytes.NewReader(data)); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

func mustGet(t *testing.T, s storage.Store, key string) []byte {
	t.Helper()
	b, err := storage.ReadAll(ctxFor(t), s, key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	return b
}

// randomBytes is deterministic for a seed, so a failure reproduces.
func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for j := range 8 {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	for i := n - n%8; i < n; i++ {
		b[i] = byte(r.Uint32())
	}
	return b
}

func testPutGetHead(t *testing.T, s storage.Store) {
	ctx := ctxFor(t)
	data := []byte(`{"commitInfo":{"operation":"WRITE"}}` + "\n")
	mustPut(t, s, "dir/obj.json", data)
	if got := mustGet(t, s, "dir/obj.json"); !bytes.Equal(got, data) {
		t.Fatalf("Get returned %q, want %q", got, data)
	}
	info, err := s.Head(ctx, "dir/obj.json")
	if err != nil {
		t.Fatalf("Head: %v", err)
	}
	if info.Size != int64(len(data)) || info.Key != "dir/obj.json" {
		t.Fatalf("Head = %+v, want key dir/obj.json size %d", info, len(data))
	}
	if info.ModTime.IsZero() || time.Since(info.ModTime) > time.Hour || time.Until(info.ModTime) > time.Hour {
		t.Fatalf("Head mod time %v is not close to now", info.ModTime)
	}
	// Put replaces.
	mustPut(t, s, "dir/obj.json", []byte("v2"))
	if got := mustGet(t, s, "dir/obj.json"); string(got) != "v2" {
		t.Fatalf("after replacing, Get = %q, want v2", got)
	}
	// An empty object is an object.
	mustPut(t, s, "empty", nil)
	if got := mustGet(t, s, "empty"); len(got) != 0 {
		t.Fatalf("empty object read back as %d bytes", len(got))
	}
	if info, err := s.Head(ctx, "empty"); err != nil || info.Size != 0 {
		t.Fatalf("Head(empty) = %+v, %v", info, err)
	}
	// Missing keys.
	if _, err := s.Get(ctx, "dir/missing.json"); !errors.Is(err, storage.ErrNotExist) || !errors.Is(err, errs.ErrNotFound) {
		t.Fatalf("Get(missing) error = %v, want storage.NotExistError", err)
	}
	if _, err := s.Head(ctx, "dir/missing.json"); !errors.Is(err, storage.ErrNotExist) || !errors.Is(err, errs.ErrNotFound) {
		t.Fatalf("Head(missing) error = %v, want storage.NotExistError", err)
	}
	if _, err := s.Open(ctx, "dir/missing.json"); !errors.Is(err, storage.ErrNotExist) || !errors.Is(err, errs.ErrNotFound) {
		t.Fatalf("Open(missing) error = %v, want storage.NotExistError", err)
	}
	// Keys with the characters Delta partition paths carry.
	for i, k := range []string{"p=a%20b/part 1.parquet", "p=ü/ß €.parquet", "p=x%3Ay/c+d=e.parquet"} {
		want := fmt.Appendf(nil, "payload %d", i)
		mustPut(t, s, k, want)
		if got := mustGet(t, s, k); !bytes.Equal(got, want) {
			t.Fatalf("Get(%q) = %q, want %q", k, got, want)
		}
	}
	objs, err := storage.Collect(ctx, s, "p=", "")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.Key)
	}
	want := []string{"p=a%20b/part 1.parquet", "p=x%3Ay/c+d=e.parquet", "p=ü/ß €.parquet"}
	if !slices.Equal(keys, want) {
		t.Fatalf("List(p=) = %q, want %q (keys must round-trip byte for byte)", keys, want)
	}
}

func testBadKeys(t *testing.T, s storage.Store) {
	ctx := ctxFor(t)
	for _, k := range []string{"", "/abs", "../escape", "a/../../escape"} {
		if err := s.Put(ctx, k, bytes.NewReader([]byte("x"))); err == nil {
			t.Errorf("Put(%q) succeeded; keys must stay under the root", k)
		}
		if err := s.PutIfAbsent(ctx, k, []byte("x")); err == nil {
			t.Errorf("PutIfAbsent(%q) succeeded; keys must stay under the root", k)
		}
		if _, err := s.Get(ctx, k); err == nil {
			t.Errorf("Get(%q) succeeded; keys must stay under the root", k)
		}
	}
}

func testList(t *testing.T, s storage.Store) {
	ctx := ctxFor(t)
	keys := []string{
		"_delta_log/00000000000000000000.json",
		"_delta_log/00000000000000000001.json",
		"_delta_log/00000000000000000002.checkpoint.parquet",
		"_delta_log/00000000000000000002.json",
		"_delta_log/00000000000000000010.json",
		"_delta_log/_last_checkpoint",
		"_delta_log_other/x",
		"part-00000.parquet",
		"year=2024/month=1/part-00001.parquet",
		"year=2024/part-00002.parquet",
	}
	var wg sync.WaitGroup
	errc := make(chan error, len(keys))
	for i, k := range slices.Backward(keys) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errc <- s.Put(ctx, k, bytes.NewReader(bytes.Repeat([]byte{'x'}, i+1)))
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		if err != nil {
			t.Fatal(err)
		}
	}
	list := func(prefix, after string) []string {
		t.Helper()
		objs, err := storage.Collect(ctx, s, prefix, after)
		if err != nil {
			t.Fatalf("List(%q, %q): %v", prefix, after, err)
		}
		var out []string
		for _, o := range objs {
			out = append(out, o.Key)
		}
		return out
	}
	check := func(prefix, after string, want []string) {
		t.Helper()
		if got := list(prefix, after); !slices.Equal(got, want) {
			t.Errorf("List(%q, %q) =\n  %q\nwant\n  %q", prefix, after, got, want)
		}
	}
	check("", "", keys)
	check("_delta_log/", "", keys[:6])
	check("_delta_log/", "_delta_log/00000000000000000001.json", keys[2:6])
	// A start key that is not itself an object.
	check("_delta_log/", "_delta_log/00000000000000000002.c", keys[2:6])
	check("_delta_log/", "_delta_log/00000000000000000002.json", keys[4:6])
	check("_delta_log/", "_delta_log/_last_checkpoint", nil)
	check("_delta_log", "", keys[:7])
	check("year=2024/", "", keys[8:])
	check("nothing-here/", "", nil)
	// Sizes come with the listing.
	objs, err := storage.Collect(ctx, s, "_delta_log/0000", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		i := slices.Index(keys, o.Key)
		if o.Size != int64(i+1) {
			t.Errorf("List size of %s = %d, want %d", o.Key, o.Size, i+1)
		}
	}
	// Stopping early is allowed.
	n := 0
	for _, err := range s.List(ctx, "", "") {
		if err != nil {
			t.Fatal(err)
		}
		n++
		if n == 2 {
			break
		}
	}
	if n != 2 {
		t.Fatalf("early break: saw %d objects", n)
	}
}

func testRangedRead(t *testing.T, s storage.Store) {
	ctx := ctxFor(t)
	data := randomBytes(1<<20+13, 1)
	mustPut(t, s, "data/part.parquet", data)
	r, err := s.Open(ctx, "data/part.parquet")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Size() != int64(len(data)) {
		t.Fatalf("Size = %d, want %d", r.Size(), len(data))
	}
	size := int64(len(data))
	cases := []struct {
		off, n  int64
		wantN   int
		wantEOF bool
	}{
		{0, 4, 4, false},
		{size - 8, 8, 8, false}, // a Parquet footer
		{size - 8, 16, 8, true}, // past the end: short read with EOF
		{123457, 65536, 65536, false},
		{size, 1, 0, true},
		{size + 10, 1, 0, true},
		{5, 0, 0, false},
	}
	for _, c := range cases {
		p := make([]byte, c.n)
		n, err := r.ReadAt(p, c.off)
		if n != c.wantN || (err == io.EOF) != c.wantEOF || (err != nil && err != io.EOF) {
			t.Errorf("ReadAt(len %d, off %d) = %d, %v; want %d, EOF=%v", c.n, c.off, n, err, c.wantN, c.wantEOF)
			continue
		}
		if end := c.off + int64(n); n > 0 && !bytes.Equal(p[:n], data[c.off:end]) {
			t.Errorf("ReadAt(len %d, off %d) returned the wrong bytes", c.n, c.off)
		}
	}
	// ReadAt is safe for concurrent use.
	var wg sync.WaitGroup
	errc := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			off := int64(i) * 60000
			p := make([]byte, 50000)
			if _, err := r.ReadAt(p, off); err != nil {
				errc <- err
				return
			}
			if !bytes.Equal(p, data[off:off+50000]) {
				errc <- fmt.Errorf("concurrent ReadAt at %d returned the wrong bytes", off)
			}
		}()
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
}

func testPutIfAbsent(t *testing.T, s storage.Store) {
	ctx := ctxFor(t)
	key := "_delta_log/00000000000000000000.json"
	if err := s.PutIfAbsent(ctx, key, []byte("first")); err != nil {
		t.Fatalf("first PutIfAbsent: %v", err)
	}
	err := s.PutIfAbsent(ctx, key, []byte("second"))
	if !errors.Is(err, storage.ErrExist) || !errors.Is(err, errs.ErrCommitConflict) {
		t.Fatalf("second PutIfAbsent error = %v, want storage.ExistError", err)
	}
	if got := mustGet(t, s, key); string(got) != "first" {
		t.Fatalf("after a lost PutIfAbsent the object holds %q, want first", got)
	}
	if err := s.Delete(ctx, key); err != nil {
		t.Fatal(err)
	}
	if err := s.PutIfAbsent(ctx, key, []byte("third")); err != nil {
		t.Fatalf("PutIfAbsent after Delete: %v", err)
	}
	if got := mustGet(t, s, key); string(got) != "third" {
		t.Fatalf("object holds %q, want third", got)
	}
	// A larger commit (many add actions) goes through the same path.
	big := randomBytes(3<<20, 7)
	if err := s.PutIfAbsent(ctx, "_delta_log/00000000000000000001.json", big); err != nil {
		t.Fatalf("3 MiB PutIfAbsent: %v", err)
	}
	if got := mustGet(t, s, "_delta_log/00000000000000000001.json"); !bytes.Equal(got, big) {
		t.Fatal("3 MiB PutIfAbsent read back different bytes")
	}
}

func testRaceGoroutines(t *testing.T, s storage.Store) {
	ctx := ctxFor(t)
	const writers, rounds = 8, 12
	for round := range rounds {
		key := fmt.Sprintf("_delta_log/%020d.json", round)
		start := make(chan struct{})
		results := make([]error, writers)
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				results[w] = s.PutIfAbsent(ctx, key, fmt.Appendf(nil, "writer %d round %d", w, round))
			}()
		}
		close(start)
		wg.Wait()
		winner := -1
		for w, err := range results {
			switch {
			case err == nil:
				if winner >= 0 {
					t.Fatalf("round %d: writers %d and %d both won", round, winner, w)
				}
				winner = w
			case !errors.Is(err, storage.ErrExist):
				t.Fatalf("round %d: writer %d failed with %v, want ErrExist", round, w, err)
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody won", round)
		}
		if got, want := string(mustGet(t, s, key)), fmt.Sprintf("writer %d round %d", winner, round); got != want {
			t.Fatalf("round %d: object holds %q, want the winner's %q", round, got, want)
		}
	}
}

func testLargePut(t *testing.T, s storage.Store, size int64) {
	ctx := ctxFor(t)
	data := randomBytes(int(size), 42)
	// A plain io.Reader (no Seek, no Len) as a streaming writer gives.
	if err := s.Put(ctx, "big/part-large.parquet", struct{ io.Reader }{bytes.NewReader(data)}); err != nil {
		t.Fatalf("Put %d bytes: %v", size, err)
	}
	info, err := s.Head(ctx, "big/part-large.parquet")
	if err != nil || info.Size != size {
		t.Fatalf("Head after large Put = %+v, %v; want size %d", info, err, size)
	}
	rc, err := s.Get(ctx, "big/part-large.parquet")
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	n, err := io.Copy(h, rc)
	rc.Close()
	if err != nil || n != size {
		t.Fatalf("Get streamed %d bytes, %v; want %d", n, err, size)
	}
	if want := sha256.Sum256(data); !bytes.Equal(h.Sum(nil), want[:]) {
		t.Fatal("large object read back with different content")
	}
	r, err := s.Open(ctx, "big/part-large.parquet")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, off := range []int64{0, 5<<20 - 100, 16<<20 - 3, size - 1000} {
		p := make([]byte, 1000)
		if _, err := r.ReadAt(p, off); err != nil && err != io.EOF {
			t.Fatalf("ReadAt(%d): %v", off, err)
		}
		if !bytes.Equal(p, data[off:off+1000]) {
			t.Fatalf("ReadAt(%d) across a part boundary returned the wrong bytes", off)
		}
	}
}

// cancellingReader sends n bytes, then cancels its context and fails.
type cancellingReader struct {
	n      int64
	cancel context.CancelFunc
	seed   uint64
}

func (c *cancellingReader) Read(p []byte) (int, error) {
	if c.n <= 0 {
		c.cancel()
		return 0, context.Canceled
	}
	m := min(int64(len(p)), c.n, 1<<20)
	copy(p, randomBytes(int(m), c.seed))
	c.seed++
	c.n -= m
	return int(m), nil
}

// failingReader sends n bytes, then fails.
type failingReader struct{ n int64 }

var errSource = errors.New("source failed")

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n <= 0 {
		return 0, errSource
	}
	m := min(int64(len(p)), f.n)
	clear(p[:m])
	f.n -= m
	return int(m), nil
}

func testCancelledPut(t *testing.T, s storage.Store, after int64) {
	ctx := ctxFor(t)
	check := func(key string) {
		t.Helper()
		if _, err := s.Head(ctx, key); !errors.Is(err, storage.ErrNotExist) {
			t.Fatalf("after a failed Put, Head(%q) = %v; want ErrNotExist", key, err)
		}
		objs, err := storage.Collect(ctx, s, "", "")
		if err != nil {
			t.Fatal(err)
		}
		if len(objs) != 0 {
			t.Fatalf("after a failed Put the store lists %+v; want nothing", objs)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	err := s.Put(cctx, "cancelled/part.parquet", &cancellingReader{n: after, cancel: cancel})
	cancel()
	if err == nil {
		t.Fatal("Put with a context cancelled mid-stream succeeded")
	}
	check("cancelled/part.parquet")

	err = s.Put(ctx, "failed/part.parquet", &failingReader{n: after})
	if err == nil {
		t.Fatal("Put from a failing reader succeeded")
	}
	check("failed/part.parquet")

	cctx, cancel = context.WithCancel(ctx)
	cancel()
	if err := s.PutIfAbsent(cctx, "_delta_log/00000000000000000000.json", []byte("x")); err == nil {
		t.Fatal("PutIfAbsent with a cancelled context succeeded")
	}
	check("_delta_log/00000000000000000000.json")
}

func testDeleteMany(t *testing.T, s storage.Store, n int) {
	ctx := ctxFor(t)
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("files/part-%05d.parquet", i)
	}
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	for _, k := range keys {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := s.Put(ctx, k, bytes.NewReader([]byte(k))); err != nil {
				mu.Lock()
				firstErr = cmpOr(firstErr, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		t.Fatal(firstErr)
	}
	mustPut(t, s, "keep/me", []byte("stay"))
	// Missing keys are not an error.
	if err := s.Delete(ctx, append(keys, "files/never-existed")...); err != nil {
		t.Fatalf("Delete of %d keys: %v", n+1, err)
	}
	objs, err := storage.Collect(ctx, s, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 1 || objs[0].Key != "keep/me" {
		t.Fatalf("after Delete the store lists %d objects (first %+v); want only keep/me", len(objs), objs[:min(len(objs), 1)])
	}
	if err := s.Delete(ctx); err != nil {
		t.Fatalf("Delete of no keys: %v", err)
	}
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
