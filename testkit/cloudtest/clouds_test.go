package cloudtest

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/deltalite-go/deltalite/storage"
	_ "github.com/deltalite-go/deltalite/storage/cloud" // s3://, az://, gs://
	"github.com/deltalite-go/deltalite/storage/storetest"
	"github.com/deltalite-go/deltalite/testkit/testservers"
)

// bucket is the bucket (container) every table of this package lives in.
const bucket = "deltalite-tables"

// cloud is one object store with a bucket ready for tables.
type cloud struct {
	name    string
	scheme  string
	opts    map[string]string // storage options that work
	secrets []string          // values that must never be shown
	// parts returns how many parts (S3) or blocks (Azure) the object at
	// key (inside the bucket) was uploaded in, 0 for a single request, or
	// -1 when the store cannot tell (GCS).
	parts func(t *testing.T, key string) int
	// pendingUploads counts uploads in parts begun under prefix and
	// neither completed nor aborted (S3 multipart uploads, Azure blobs
	// with only uncommitted blocks), or -1 when the store cannot tell.
	pendingUploads func(t *testing.T, prefix string) int
	// abortsUploads: a failed upload removes what it staged (S3 aborts
	// the multipart upload; Azure can only let blocks expire).
	abortsUploads bool
	// bad are the broken configurations of this store.
	bad func(t *testing.T) []badCase
}

// badCase is a configuration that must fail quickly and clearly.
type badCase struct {
	name    string
	uri     string
	opts    map[string]string
	secrets []string // never to be shown, besides the cloud's own
	want    string   // a phrase the error must contain
}

// tableURI is a fresh table location in the bucket.
func (c *cloud) tableURI(prefix string) string {
	return c.scheme + "://" + bucket + "/" + uniqueName(prefix)
}

// keyOf maps a table URI and a key inside the table to the key in the bucket.
func keyOf(uri, key string) string {
	_, rest, _ := strings.Cut(uri, "://")
	_, path, _ := strings.Cut(rest, "/")
	return path + "/" + key
}

// store opens the table's store with the working options.
func (c *cloud) store(t *testing.T, uri string) storage.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := storage.Open(ctx, uri, c.opts)
	if err != nil {
		t.Fatalf("opening the store of %s: %v", uri, err)
	}
	return s
}

// keys lists every object of the table, sorted.
func (c *cloud) keys(t *testing.T, uri string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	objs, err := storage.Collect(ctx, c.store(t, uri), "", "")
	if err != nil {
		t.Fatalf("listing %s: %v", uri, err)
	}
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.Key
	}
	return out
}

var cloudNames = []string{"S3", "Azure", "GCS"}

// getCloud starts the named store's server (once per test binary) and makes
// sure the bucket exists; a server that is not installed skips the test.
func getCloud(t *testing.T, name string) *cloud {
	t.Helper()
	switch name {
	case "S3":
		return s3Cloud(t)
	case "Azure":
		return azureCloud(t)
	case "GCS":
		return gcsCloud(t)
	}
	t.Fatalf("unknown cloud %s", name)
	return nil
}

// eachCloud runs fn as a subtest per store, in parallel when asked (the
// stores are separate servers, and most of the time goes into waiting).
func eachCloud(t *testing.T, parallel bool, fn func(t *testing.T, c *cloud)) {
	for _, name := range cloudNames {
		t.Run(name, func(t *testing.T) {
			if parallel {
				t.Parallel()
			}
			fn(t, getCloud(t, name))
		})
	}
}

// setup runs a bucket-creating function once per server.
var setup sync.Map // server key -> func() error

func once(t *testing.T, key string, f func() error) {
	t.Helper()
	v, _ := setup.LoadOrStore(key, sync.OnceValue(f))
	if err := v.(func() error)(); err != nil {
		t.Fatalf("preparing %s: %v", key, err)
	}
}

func uniqueName(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func with(base map[string]string, extra map[string]string) map[string]string {
	out := maps.Clone(base)
	maps.Copy(out, extra)
	return out
}

// --- S3 (versitygw) ---

func s3Client(srv *testservers.S3Server) *s3.Client {
	return s3.New(s3.Options{
		Region:       srv.Region,
		BaseEndpoint: aws.String(srv.Endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(srv.AccessKey, srv.SecretKey, ""),
	})
}

// s3Options are the storage options of versitygw, spelled as delta-rs
// users spell them.
func s3Options(srv *testservers.S3Server) map[string]string {
	return map[string]string{
		"AWS_ACCESS_KEY_ID":     srv.AccessKey,
		"AWS_SECRET_ACCESS_KEY": srv.SecretKey,
		"AWS_REGION":            srv.Region,
		"AWS_ENDPOINT_URL":      srv.Endpoint,
		"AWS_ALLOW_HTTP":        "true",
	}
}

func s3Cloud(t *testing.T) *cloud {
	t.Helper()
	srv := testservers.S3(t)
	client := s3Client(srv)
	once(t, "s3 "+srv.Endpoint, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)})
		return err
	})
	return &cloud{
		name: "S3", scheme: "s3", opts: s3Options(srv), secrets: []string{srv.SecretKey},
		parts: func(t *testing.T, key string) int {
			t.Helper()
			out, err := client.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
			if err != nil {
				t.Fatalf("HEAD %s: %v", key, err)
			}
			// A multipart object's ETag ends in -<number of parts>.
			etag := strings.Trim(aws.ToString(out.ETag), `"`)
			if _, n, ok := strings.Cut(etag, "-"); ok {
				var parts int
				if _, err := fmt.Sscan(n, &parts); err == nil {
					return parts
				}
			}
			return 0
		},
		abortsUploads: true,
		pendingUploads: func(t *testing.T, prefix string) int {
			t.Helper()
			out, err := client.ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
			if err != nil {
				t.Fatalf("listing multipart uploads: %v", err)
			}
			return len(out.Uploads)
		},
		bad: func(t *testing.T) []badCase {
			wrong := "wrong-secret-" + uniqueName("")
			return []badCase{
				{"WrongCredentials", "s3://" + bucket + "/" + uniqueName("bad-"), with(s3Options(srv), map[string]string{"AWS_SECRET_ACCESS_KEY": wrong}), []string{wrong}, "access denied"},
				{"MissingBucket", "s3://no-such-bucket-" + uniqueName("") + "/t", s3Options(srv), nil, "does not exist"},
				{"UnreachableEndpoint", "s3://" + bucket + "/" + uniqueName("bad-"), with(s3Options(srv), map[string]string{"AWS_ENDPOINT_URL": storetest.ClosedPortURL(t)}), nil, "cannot reach"},
			}
		},
	}
}

// --- Azure Blob (Azurite) ---

func azureOptions(srv *testservers.AzureServer) map[string]string {
	return map[string]string{
		"AZURE_STORAGE_ACCOUNT_NAME": srv.Account,
		"AZURE_STORAGE_ACCOUNT_KEY":  srv.Key,
		"AZURE_STORAGE_ENDPOINT":     srv.Endpoint,
		"AZURE_ALLOW_HTTP":           "true",
	}
}

func azureCloud(t *testing.T) *cloud {
	t.Helper()
	srv := testservers.Azurite(t)
	cred, err := container.NewSharedKeyCredential(srv.Account, srv.Key)
	if err != nil {
		t.Fatal(err)
	}
	once(t, "azure "+srv.Endpoint, func() error {
		c, err := container.NewClientWithSharedKeyCredential(srv.Endpoint+"/"+bucket, cred, nil)
		if err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err = c.Create(ctx, nil)
		return err
	})
	return &cloud{
		name: "Azure", scheme: "az", opts: azureOptions(srv), secrets: []string{srv.Key},
		parts: func(t *testing.T, key string) int {
			t.Helper()
			b, err := blockblob.NewClientWithSharedKeyCredential(srv.Endpoint+"/"+bucket+"/"+key, cred, nil)
			if err != nil {
				t.Fatal(err)
			}
			out, err := b.GetBlockList(context.Background(), blockblob.BlockListTypeCommitted, nil)
			if err != nil {
				t.Fatalf("block list of %s: %v", key, err)
			}
			return len(out.CommittedBlocks)
		},
		pendingUploads: func(t *testing.T, prefix string) int {
			t.Helper()
			c, err := container.NewClientWithSharedKeyCredential(srv.Endpoint+"/"+bucket, cred, nil)
			if err != nil {
				t.Fatal(err)
			}
			committed := map[string]bool{}
			n := 0
			for _, uncommitted := range []bool{false, true} {
				pager := c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{
					Prefix:  &prefix,
					Include: container.ListBlobsInclude{UncommittedBlobs: uncommitted},
				})
				for pager.More() {
					page, err := pager.NextPage(context.Background())
					if err != nil {
						t.Fatalf("listing blobs: %v", err)
					}
					for _, b := range page.Segment.BlobItems {
						switch name := *b.Name; {
						case !uncommitted:
							committed[name] = true
						case !committed[name]:
							n++
						}
					}
				}
			}
			return n
		},
		bad: func(t *testing.T) []badCase {
			raw := make([]byte, 64)
			_, _ = rand.Read(raw)
			wrong := base64.StdEncoding.EncodeToString(raw)
			return []badCase{
				{"WrongCredentials", "az://" + bucket + "/" + uniqueName("bad-"), with(azureOptions(srv), map[string]string{"AZURE_STORAGE_ACCOUNT_KEY": wrong}), []string{wrong}, "access denied"},
				{"MissingBucket", "az://no-such-container-" + uniqueName("") + "/t", azureOptions(srv), nil, "does not exist"},
				{"UnreachableEndpoint", "az://" + bucket + "/" + uniqueName("bad-"), with(azureOptions(srv), map[string]string{"AZURE_STORAGE_ENDPOINT": storetest.ClosedPortURL(t) + "/" + srv.Account}), nil, "cannot reach"},
			}
		},
	}
}

// --- GCS (fake-gcs-server, in this process) ---

func gcsCloud(t *testing.T) *cloud {
	t.Helper()
	srv := testservers.GCS(t)
	once(t, "gcs "+srv.Host, func() error {
		srv.Server.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: bucket})
		return nil
	})
	opts := map[string]string{"STORAGE_EMULATOR_HOST": srv.Host}
	return &cloud{
		name: "GCS", scheme: "gs", opts: opts,
		parts:          func(*testing.T, string) int { return -1 },
		pendingUploads: func(*testing.T, string) int { return -1 },
		bad: func(t *testing.T) []badCase {
			// The emulator checks no credentials: a token endpoint that
			// refuses the key stands in for Google refusing a revoked one.
			tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`))
			}))
			t.Cleanup(tokens.Close)
			key, keySecrets := storetest.FakeServiceAccount(t, tokens.URL+"/token")
			return []badCase{
				{"WrongCredentials", "gs://" + bucket + "/" + uniqueName("bad-"), map[string]string{
					"GOOGLE_SERVICE_ACCOUNT_KEY": key,
					"GOOGLE_STORAGE_ENDPOINT":    "http://" + srv.Host,
					"GOOGLE_ALLOW_HTTP":          "true",
				}, keySecrets, "access denied"},
				{"MissingBucket", "gs://no-such-bucket-" + uniqueName("") + "/t", opts, nil, "does not exist"},
				{"UnreachableEndpoint", "gs://" + bucket + "/" + uniqueName("bad-"), map[string]string{"STORAGE_EMULATOR_HOST": storetest.ClosedPortURL(t)}, nil, "cannot reach"},
			}
		},
	}
}
