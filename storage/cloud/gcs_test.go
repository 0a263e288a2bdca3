package cloud

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/storage/storetest"
	"github.com/deltalite-go/deltalite/testkit/testservers"
)

const gcsTestBucket = "deltalite-test"

var gcsBucketOnce sync.Map // host -> func()

func gcsServer(t *testing.T) *testservers.GCSServer {
	t.Helper()
	srv := testservers.GCS(t)
	v, _ := gcsBucketOnce.LoadOrStore(srv.Host, sync.OnceFunc(func() {
		srv.Server.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: gcsTestBucket})
	}))
	v.(func())()
	return srv
}

func gcsTestOptions(srv *testservers.GCSServer) map[string]string {
	return map[string]string{"STORAGE_EMULATOR_HOST": srv.Host}
}

func TestGCSConformance(t *testing.T) {
	// Deletes are one request each: no batch boundary to cross.
	runConformance(t, "gs://"+gcsTestBucket+"/", gcsTestOptions(gcsServer(t)), 300)
}

func TestGCSFailures(t *testing.T) {
	srv := gcsServer(t)
	const bound = 10 * time.Second
	t.Run("RejectedCredentials", func(t *testing.T) {
		// The token endpoint refuses the key, as Google does for a revoked one.
		tokens := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":"invalid_grant","error_description":"Invalid JWT Signature."}`))
		}))
		defer tokens.Close()
		key, secrets := storetest.FakeServiceAccount(t, tokens.URL+"/token")
		s := openStore(t, "gs://"+gcsTestBucket+"/t", map[string]string{
			"GOOGLE_SERVICE_ACCOUNT_KEY": key,
			"GOOGLE_STORAGE_ENDPOINT":    "http://" + srv.Host,
			"GOOGLE_ALLOW_HTTP":          "true",
		})
		for op, err := range storetest.ExpectFailures(t, s, bound, secrets...) {
			if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), "access denied") {
				t.Errorf("%s: %v; want access denied", op, err)
			}
		}
	})
	t.Run("MalformedKey", func(t *testing.T) {
		secret := "gcs-secret-" + uniqueName("")
		_, err := storage.Open(context.Background(), "gs://"+gcsTestBucket+"/t", map[string]string{
			"GOOGLE_SERVICE_ACCOUNT_KEY": `{"type":"service_account","private_key":"` + secret + `"}`,
		})
		if err == nil || strings.Contains(err.Error(), secret) || !strings.Contains(err.Error(), "GOOGLE_SERVICE_ACCOUNT_KEY") {
			t.Fatalf("Open with a malformed key: %v; want an error naming the option and not its value", err)
		}
	})
	t.Run("MissingBucket", func(t *testing.T) {
		s := openStore(t, "gs://no-such-bucket-"+uniqueName("")+"/t", gcsTestOptions(srv))
		for op, err := range storetest.ExpectFailures(t, s, bound) {
			if op == "Head" || op == "Open" || op == "Get" || op == "Delete" {
				continue // object requests may report the object, not the bucket
			}
			if !strings.Contains(err.Error(), "does not exist") || errors.Is(err, storage.ErrNotExist) {
				t.Errorf("%s: %v; want a missing-bucket error that is not ErrNotExist", op, err)
			}
		}
	})
	t.Run("UnreachableEndpoint", func(t *testing.T) {
		s := openStore(t, "gs://"+gcsTestBucket+"/t", map[string]string{"STORAGE_EMULATOR_HOST": storetest.ClosedPortURL(t)})
		for op, err := range storetest.ExpectFailures(t, s, bound) {
			if !strings.Contains(err.Error(), "cannot reach") {
				t.Errorf("%s: %v; want cannot reach", op, err)
			}
		}
	})
}
