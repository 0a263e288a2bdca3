package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	duckdbio "github.com/deltalite-go/deltalite/integrations/duckdb"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/testservers"
	"github.com/deltalite-go/deltalite/write"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testservers.StopAll()
	os.Exit(code)
}

// The command registers the object stores (main.go imports them; this
// file must not, or the test proves nothing).
func TestCloudSchemesRegistered(t *testing.T) {
	for _, scheme := range []string{"s3", "s3a", "az", "abfss", "gs"} {
		if !slices.Contains(storage.Schemes(), scheme) {
			t.Errorf("scheme %s is not registered (schemes: %v)", scheme, storage.Schemes())
		}
	}
}

// TestDeltaScanOnS3 reads a table on S3 (versitygw) through delta_scan,
// with the credentials as --storage-option flags and, without flags, from
// the environment under the keys delta-rs reads (AWS_ENDPOINT_URL,
// AWS_ALLOW_HTTP, ...). The secret is never shown.
func TestDeltaScanOnS3(t *testing.T) {
	srv := testservers.S3(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	const bucket = "deltalite-duckdb"
	client := s3.New(s3.Options{
		Region: srv.Region, BaseEndpoint: aws.String(srv.Endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(srv.AccessKey, srv.SecretKey, ""),
	})
	if _, err := client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		var owned *types.BucketAlreadyOwnedByYou
		if !errors.As(err, &owned) {
			t.Fatal(err)
		}
	}
	opts := map[string]string{
		"AWS_ACCESS_KEY_ID":     srv.AccessKey,
		"AWS_SECRET_ACCESS_KEY": srv.SecretKey,
		"AWS_REGION":            srv.Region,
		"AWS_ENDPOINT_URL":      srv.Endpoint,
		"AWS_ALLOW_HTTP":        "true",
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	uri := "s3://" + bucket + "/sales-" + hex.EncodeToString(b)

	// Two commits: 2 rows, then 1 more.
	res := &duckdbio.Resource{}
	defer res.Close()
	s, err := res.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, q := range []string{
		"SELECT * FROM (VALUES (1, 'mon'), (2, 'tue')) t(id, day)",
		"SELECT 3 AS id, 'wed' AS day",
	} {
		if _, err := s.SQL(q).Write(ctx, uri, write.Options{Mode: write.ModeAppend, StorageOptions: opts}); err != nil {
			t.Fatalf("writing %s: %v", uri, err)
		}
	}

	query := "SELECT id, day FROM delta_scan('" + uri + "') ORDER BY id"
	old := "SELECT count(*) AS n FROM delta_scan('" + uri + "', version => 0)"
	var flags []string
	for k, v := range opts {
		flags = append(flags, "--storage-option", k+"="+v)
	}
	check := func(how string, extra ...string) {
		t.Helper()
		out, stderr, err := runCommand(t, "", append([]string{"-c", query, "--format", "csv"}, extra...)...)
		if err != nil || out != "id,day\n1,mon\n2,tue\n3,wed\n" {
			t.Fatalf("%s: %q, %v", how, out, err)
		}
		if strings.Contains(out+stderr, srv.SecretKey) {
			t.Fatalf("%s: the secret was shown", how)
		}
		out, _, err = runCommand(t, "", append([]string{"-c", old, "--format", "csv"}, extra...)...)
		if err != nil || out != "n\n2\n" {
			t.Fatalf("%s, version 0: %q, %v", how, out, err)
		}
	}
	check("--storage-option", flags...)
	for k, v := range opts {
		t.Setenv(k, v)
	}
	check("environment")

	// A wrong secret fails, naming neither it nor the right one.
	wrong := "wrong-" + hex.EncodeToString(b)
	_, _, err = runCommand(t, "", "-c", query, "--storage-option", "AWS_SECRET_ACCESS_KEY="+wrong)
	if err == nil || strings.Contains(err.Error(), wrong) || strings.Contains(err.Error(), srv.SecretKey) || !strings.Contains(err.Error(), bucket) {
		t.Fatalf("wrong secret: %v; want an error naming the table without a secret", err)
	}
}
