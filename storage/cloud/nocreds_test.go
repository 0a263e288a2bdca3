package cloud

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/storage/storetest"
)

// TestS3NoCredentials: with no credentials anywhere, opening an S3 table
// fails at once with an error naming the settings to give, and the SDK
// prints nothing of its own (it would warn about instance metadata).
func TestS3NoCredentials(t *testing.T) {
	home := t.TempDir()
	for k, v := range map[string]string{
		"HOME": home, "AWS_CONFIG_FILE": filepath.Join(home, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, "credentials"),
		"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "",
		"AWS_WEB_IDENTITY_TOKEN_FILE": "", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI": "", "AWS_CONTAINER_CREDENTIALS_FULL_URI": "",
		"AWS_EC2_METADATA_DISABLED": "",
	} {
		t.Setenv(k, v)
	}
	// Instance metadata that refuses a token (the SDK then warns that it
	// falls back to IMDSv1) and knows no role.
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut {
			w.WriteHeader(http.StatusForbidden)
			return
		}
		w.WriteHeader(http.StatusNotFound)
	}))
	defer imds.Close()
	t.Setenv("AWS_EC2_METADATA_SERVICE_ENDPOINT", imds.URL)

	stderr := captureStderr(t)
	_, err := storage.Open(context.Background(), "s3://bucket/t",
		map[string]string{"AWS_ENDPOINT_URL": storetest.ClosedPortURL(t), "AWS_ALLOW_HTTP": "true"})
	printed := stderr()
	if err == nil {
		t.Fatal("Open without credentials succeeded")
	}
	msg := err.Error()
	if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(msg, "no S3 credentials") ||
		!strings.Contains(msg, "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY") || strings.Contains(msg, "IMDS") {
		t.Errorf("error %q; want an invalid argument naming the credential settings", msg)
	}
	if printed != "" {
		t.Errorf("the SDK printed %q", printed)
	}
}

// captureStderr sends os.Stderr to a pipe until the returned function
// gives back what was written.
func captureStderr(t *testing.T) func() string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stderr
	os.Stderr = w
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		done <- string(b)
	}()
	return func() string {
		os.Stderr = old
		w.Close()
		return <-done
	}
}
