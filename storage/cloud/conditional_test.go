package cloud

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/deltalite-go/deltalite/storage"
)

func fakeS3Options(endpoint string, extra ...map[string]string) map[string]string {
	return withOptions(map[string]string{
		"AWS_ACCESS_KEY_ID":     "fake-access",
		"AWS_SECRET_ACCESS_KEY": "fake-secret-value",
		"AWS_REGION":            "us-east-1",
		"AWS_ENDPOINT_URL":      endpoint,
		"AWS_ALLOW_HTTP":        "true",
	}, extra...)
}

// TestS3RefusesEndpointWithoutConditionalWrites: a server that ignores
// If-None-Match is detected by the first write and refused, nothing is
// left behind, and the verdict is cached.
func TestS3RefusesEndpointWithoutConditionalWrites(t *testing.T) {
	fake, url := newFakeS3(t, false)
	s := openStore(t, "s3://bucket/table", fakeS3Options(url))
	ctx := context.Background()
	err := s.PutIfAbsent(ctx, "_delta_log/00000000000000000000.json", []byte("{}"))
	if !errors.Is(err, ErrNoConditionalWrites) || !strings.Contains(err.Error(), "AWS_S3_ALLOW_UNSAFE_RENAME=true") {
		t.Fatalf("PutIfAbsent on a server without conditional writes: %v; want ErrNoConditionalWrites naming the opt-in", err)
	}
	if keys := fake.keys(); len(keys) != 0 {
		t.Fatalf("the refused store left objects behind: %q", keys)
	}
	puts := fake.puts
	if err := s.Put(ctx, "part-0.parquet", bytes.NewReader([]byte("data"))); !errors.Is(err, ErrNoConditionalWrites) {
		t.Fatalf("Put on a refused store: %v; want ErrNoConditionalWrites", err)
	}
	checker, ok := s.(interface{ CheckCommitSafety(context.Context) error })
	if !ok {
		t.Fatal("cloud stores must offer CheckCommitSafety")
	}
	if err := checker.CheckCommitSafety(ctx); !errors.Is(err, ErrNoConditionalWrites) {
		t.Fatalf("CheckCommitSafety: %v", err)
	}
	if fake.puts != puts || len(fake.keys()) != 0 {
		t.Fatalf("the probe ran again or data was written: %d PUTs after the first probe", fake.puts-puts)
	}
	// Reads still work.
	if _, err := s.Get(ctx, "_delta_log/00000000000000000000.json"); !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("Get on a refused store: %v; want ErrNotExist", err)
	}
}

// TestS3UnsafeRenameOptIn: with AWS_S3_ALLOW_UNSAFE_RENAME=true the same
// server is used with check-then-write, fine for a single writer.
func TestS3UnsafeRenameOptIn(t *testing.T) {
	fake, url := newFakeS3(t, false)
	s := openStore(t, "s3://bucket/table", fakeS3Options(url, map[string]string{"aws_s3_allow_unsafe_rename": "TRUE"}))
	ctx := context.Background()
	key := "_delta_log/00000000000000000000.json"
	if err := s.PutIfAbsent(ctx, key, []byte("first")); err != nil {
		t.Fatalf("PutIfAbsent in single-writer mode: %v", err)
	}
	if err := s.PutIfAbsent(ctx, key, []byte("second")); !errors.Is(err, storage.ErrExist) {
		t.Fatalf("second PutIfAbsent: %v; want ErrExist", err)
	}
	if got := string(fake.objs["table/"+key]); got != "first" {
		t.Fatalf("object holds %q, want first", got)
	}
	if keys := fake.keys(); len(keys) != 1 {
		t.Fatalf("objects after the probe: %q; want only the commit", keys)
	}
}

// TestS3ConditionalPutDisabled: the user can say the endpoint has no
// conditional writes; no probe is sent.
func TestS3ConditionalPutDisabled(t *testing.T) {
	fake, url := newFakeS3(t, true)
	s := openStore(t, "s3://bucket/table", fakeS3Options(url, map[string]string{"AWS_CONDITIONAL_PUT": "disabled"}))
	if err := s.PutIfAbsent(context.Background(), "k", []byte("v")); !errors.Is(err, ErrNoConditionalWrites) {
		t.Fatalf("PutIfAbsent with AWS_CONDITIONAL_PUT=disabled: %v; want ErrNoConditionalWrites", err)
	}
	if fake.puts != 0 {
		t.Fatalf("%d PUTs sent; want none", fake.puts)
	}
}

// TestS3ConflictIsRetried: 409 ConditionalRequestConflict (a concurrent
// conditional write in flight) is retried, and reported as a lost race if
// it persists.
func TestS3ConflictIsRetried(t *testing.T) {
	fake, url := newFakeS3(t, true)
	s := openStore(t, "s3://bucket/table", fakeS3Options(url))
	ctx := context.Background()
	if err := s.PutIfAbsent(ctx, "warm", []byte("x")); err != nil { // runs the probe
		t.Fatal(err)
	}
	fake.mu.Lock()
	fake.conflicts, fake.condPuts = 2, 0
	fake.mu.Unlock()
	if err := s.PutIfAbsent(ctx, "a", []byte("v")); err != nil {
		t.Fatalf("PutIfAbsent after two 409s: %v", err)
	}
	if fake.condPuts != 3 {
		t.Fatalf("%d conditional PUTs; want 3 (two 409s, then success)", fake.condPuts)
	}
	fake.mu.Lock()
	fake.conflicts = 1000
	fake.mu.Unlock()
	begin := time.Now()
	err := s.PutIfAbsent(ctx, "b", []byte("v"))
	if !errors.Is(err, storage.ErrExist) {
		t.Fatalf("PutIfAbsent under persistent 409s: %v; want ErrExist (a lost race)", err)
	}
	if took := time.Since(begin); took > 5*time.Second {
		t.Fatalf("giving up on 409s took %v", took)
	} else {
		t.Logf("gave up after %d conditional PUTs in %v", fake.condPuts-3, took.Round(time.Millisecond))
	}
}

// TestS3RetriedOwnWrite: a 412 on an object that already holds exactly
// our bytes means an earlier attempt of ours landed; that is a win.
func TestS3RetriedOwnWrite(t *testing.T) {
	fake, url := newFakeS3(t, true)
	s := openStore(t, "s3://bucket/table", fakeS3Options(url))
	ctx := context.Background()
	fake.mu.Lock()
	fake.objs["table/_delta_log/00000000000000000007.json"] = []byte("ours")
	fake.mu.Unlock()
	if err := s.PutIfAbsent(ctx, "_delta_log/00000000000000000007.json", []byte("ours")); err != nil {
		t.Fatalf("PutIfAbsent over our own landed bytes: %v", err)
	}
	if err := s.PutIfAbsent(ctx, "_delta_log/00000000000000000007.json", []byte("theirs")); !errors.Is(err, storage.ErrExist) {
		t.Fatalf("PutIfAbsent over another writer's bytes: %v; want ErrExist", err)
	}
}

// TestS3CancelledMultipartIsAborted: a cancelled large Put leaves no
// multipart upload behind on the server (it would cost storage, unseen).
func TestS3CancelledMultipartIsAborted(t *testing.T) {
	srv := s3Server(t)
	prefix := uniqueName("abort-")
	s := openStore(t, "s3://"+s3TestBucket+"/"+prefix, withOptions(s3TestOptions(srv), testMultipart))
	ctx, cancel := context.WithCancel(context.Background())
	r := &slowCancel{left: 20 << 20, cancelAt: 14 << 20, cancel: cancel}
	if err := s.Put(ctx, "big.parquet", r); err == nil {
		t.Fatal("cancelled Put succeeded")
	}
	client := s3.New(s3.Options{
		Region: srv.Region, BaseEndpoint: aws.String(srv.Endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(srv.AccessKey, srv.SecretKey, ""),
	})
	out, err := client.ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{
		Bucket: aws.String(s3TestBucket), Prefix: aws.String(prefix)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Uploads) != 0 {
		t.Fatalf("%d multipart uploads left after a cancelled Put", len(out.Uploads))
	}
}

// slowCancel streams zeros and cancels its context part-way.
type slowCancel struct {
	left, cancelAt int64
	sent           int64
	cancel         context.CancelFunc
}

func (r *slowCancel) Read(p []byte) (int, error) {
	if r.sent >= r.cancelAt {
		r.cancel()
		return 0, context.Canceled
	}
	n := min(int64(len(p)), r.left, 1<<20)
	clear(p[:n])
	r.left -= n
	r.sent += n
	return int(n), nil
}

// TestProbeIsATempObject: the probe object is named as the stores'
// temporary objects are, so that a vacuum removes one a killed process
// left behind.
func TestProbeIsATempObject(t *testing.T) {
	fake, url := newFakeS3(t, true)
	s := openStore(t, "s3://bucket/table", fakeS3Options(url))
	if err := s.PutIfAbsent(context.Background(), "_delta_log/00000000000000000000.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	var probes []string
	for _, k := range fake.putKeys {
		if k != "table/_delta_log/00000000000000000000.json" {
			probes = append(probes, k)
		}
	}
	if len(probes) != 2 || probes[0] != probes[1] {
		t.Fatalf("PUTs besides the commit: %q; want the probe twice", probes)
	}
	if !strings.HasPrefix(probes[0], "table/.deltalite-tmp-") || !storage.IsTemp(probes[0]) {
		t.Errorf("probe key %q: want table/.deltalite-tmp-..., a temporary object by storage.IsTemp", probes[0])
	}
}
