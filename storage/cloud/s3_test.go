package cloud

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/storage/storetest"
	"github.com/deltalite-go/deltalite/testkit/testservers"
)

const s3TestBucket = "deltalite-test"

var s3BucketOnce sync.Map // endpoint -> error

// s3Server starts versitygw and makes sure the test bucket exists.
func s3Server(t *testing.T) *testservers.S3Server {
	t.Helper()
	srv := testservers.S3(t)
	v, _ := s3BucketOnce.LoadOrStore(srv.Endpoint, sync.OnceValue(func() error {
		client := s3.New(s3.Options{
			Region:       srv.Region,
			BaseEndpoint: aws.String(srv.Endpoint),
			UsePathStyle: true,
			Credentials:  credentials.NewStaticCredentialsProvider(srv.AccessKey, srv.SecretKey, ""),
		})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s3TestBucket)})
		return err
	}))
	if err := v.(func() error)(); err != nil {
		t.Fatalf("creating bucket %s: %v", s3TestBucket, err)
	}
	return srv
}

func s3TestOptions(srv *testservers.S3Server) map[string]string {
	return map[string]string{
		"AWS_ACCESS_KEY_ID":     srv.AccessKey,
		"aws_secret_access_key": srv.SecretKey, // keys are case-insensitive
		"AWS_REGION":            srv.Region,
		"AWS_ENDPOINT_URL":      srv.Endpoint,
		"AWS_ALLOW_HTTP":        "true",
	}
}

func TestS3Conformance(t *testing.T) {
	runConformance(t, "s3://"+s3TestBucket+"/", s3TestOptions(s3Server(t)), 0)
}

func TestS3SchemeS3A(t *testing.T) {
	srv := s3Server(t)
	s := openStore(t, "s3a://"+s3TestBucket+"/"+uniqueName("s3a-"), s3TestOptions(srv))
	if !strings.HasPrefix(s.URL(), "s3a://"+s3TestBucket+"/s3a-") {
		t.Fatalf("URL() = %s", s.URL())
	}
	ctx := context.Background()
	if err := s.PutIfAbsent(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if b, err := storage.ReadAll(ctx, s, "k"); err != nil || string(b) != "v" {
		t.Fatalf("ReadAll = %q, %v", b, err)
	}
}

func TestS3Failures(t *testing.T) {
	srv := s3Server(t)
	const bound = 10 * time.Second

	t.Run("WrongCredentials", func(t *testing.T) {
		wrong := "wrong-secret-" + uniqueName("")
		opts := withOptions(s3TestOptions(srv), map[string]string{"AWS_SECRET_ACCESS_KEY": wrong})
		s := openStore(t, "s3://"+s3TestBucket+"/t", opts)
		got := storetest.ExpectFailures(t, s, bound, wrong, srv.SecretKey)
		for op, err := range got {
			if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), "access denied") {
				t.Errorf("%s: %v; want an invalid-argument error saying access denied", op, err)
			}
		}
	})
	t.Run("MissingBucket", func(t *testing.T) {
		s := openStore(t, "s3://no-such-bucket-"+uniqueName("")+"/t", s3TestOptions(srv))
		got := storetest.ExpectFailures(t, s, bound, srv.SecretKey)
		for op, err := range got {
			if op == "Head" || op == "Open" {
				continue // a HEAD response has no body to say which is missing
			}
			if !strings.Contains(err.Error(), "does not exist") || errors.Is(err, storage.ErrNotExist) {
				t.Errorf("%s: %v; want a missing-bucket error that is not ErrNotExist", op, err)
			}
		}
	})
	t.Run("UnreachableEndpoint", func(t *testing.T) {
		opts := withOptions(s3TestOptions(srv), map[string]string{"AWS_ENDPOINT_URL": storetest.ClosedPortURL(t)})
		s := openStore(t, "s3://"+s3TestBucket+"/t", opts)
		got := storetest.ExpectFailures(t, s, bound, srv.SecretKey)
		for op, err := range got {
			if !strings.Contains(err.Error(), "cannot reach") {
				t.Errorf("%s: %v; want cannot reach", op, err)
			}
		}
	})
}

// TestS3MultipartThreshold: objects above the threshold go up in parts of
// the part size (S3 marks such an ETag "-<parts>"), smaller ones in one PUT.
func TestS3MultipartThreshold(t *testing.T) {
	srv := s3Server(t)
	prefix := uniqueName("mp-")
	s := openStore(t, "s3://"+s3TestBucket+"/"+prefix, withOptions(s3TestOptions(srv), testMultipart))
	ctx := context.Background()
	client := s3.New(s3.Options{
		Region: srv.Region, BaseEndpoint: aws.String(srv.Endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(srv.AccessKey, srv.SecretKey, ""),
	})
	for _, c := range []struct {
		size  int
		parts string
	}{{7 << 20, ""}, {8 << 20, ""}, {8<<20 + 1, "-2"}, {12 << 20, "-3"}} {
		key := fmt.Sprintf("obj-%d", c.size)
		if err := s.Put(ctx, key, bytes.NewReader(make([]byte, c.size))); err != nil {
			t.Fatal(err)
		}
		out, err := client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s3TestBucket), Key: aws.String(prefix + "/" + key)})
		if err != nil {
			t.Fatal(err)
		}
		etag := strings.Trim(aws.ToString(out.ETag), `"`)
		if got := etag[max(0, strings.LastIndex(etag, "-")):]; (c.parts == "" && strings.Contains(etag, "-")) || (c.parts != "" && got != c.parts) {
			t.Errorf("%d bytes: ETag %s; want %s", c.size, etag, cmp.Or(c.parts, "a single-part ETag"))
		}
	}
}
