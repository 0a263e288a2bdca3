package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestNoExtensionDownload: the command never lets DuckDB install or load
// an extension by itself. A query that needs one (httpfs for s3:// in
// read_csv) fails at once with DuckDB's error naming it and ours saying
// why, and DuckDB asks
// no extension repository for it: the repository here is a local server
// that counts requests, over an empty extension directory, so an automatic
// install would show as a request.
func TestNoExtensionDownload(t *testing.T) {
	var asked atomic.Int64
	repo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		http.NotFound(w, r)
	}))
	defer repo.Close()
	q := fmt.Sprintf(`SET extension_directory = '%s';
SET custom_extension_repository = '%s';
SET autoinstall_extension_repository = '%s';
SELECT * FROM read_csv('s3://bucket/x.csv')`, t.TempDir(), repo.URL, repo.URL)
	start := time.Now()
	out, _, err := runCommand(t, "", "-c", q, "--format", "csv")
	took := time.Since(start)
	if err == nil || !strings.Contains(err.Error(), "httpfs") || !strings.Contains(err.Error(), "installs and loads no extension by itself") {
		t.Fatalf("read_csv('s3://...'): %q, %v; want an error naming the httpfs extension and saying why it is not loaded", out, err)
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("DuckDB asked the extension repository %d times (automatic install): %v", n, err)
	}
	if took > 10*time.Second {
		t.Fatalf("the refusal took %s, want it at once", took)
	}
	// The settings themselves, as a session sees them.
	out, _, err = runCommand(t, "", "-c", "SELECT current_setting('autoinstall_known_extensions') AS i, current_setting('autoload_known_extensions') AS l", "--format", "csv")
	if err != nil || out != "i,l\nfalse,false\n" {
		t.Fatalf("settings: %q, %v; want both false", out, err)
	}
}
