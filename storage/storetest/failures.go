package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite/storage"
)

// ExpectFailures runs every Store operation on a store that cannot work
// (wrong credentials, missing bucket, unreachable endpoint) and checks that
// each fails within the bound, names the store, and never contains any of
// the secrets. It returns the errors, by operation, for further checks.
func ExpectFailures(t *testing.T, s storage.Store, within time.Duration, secrets ...string) map[string]error {
	t.Helper()
	ops := []struct {
		name string
		run  func(ctx context.Context) error
	}{
		{"Get", func(ctx context.Context) error {
			rc, err := s.Get(ctx, "_delta_log/_last_checkpoint")
			if err == nil {
				rc.Close()
			}
			return err
		}},
		{"Head", func(ctx context.Context) error {
			_, err := s.Head(ctx, "_delta_log/00000000000000000000.json")
			return err
		}},
		{"Open", func(ctx context.Context) error {
			r, err := s.Open(ctx, "part-0.parquet")
			if err == nil {
				r.Close()
			}
			return err
		}},
		{"List", func(ctx context.Context) error {
			_, err := storage.Collect(ctx, s, "_delta_log/", "")
			return err
		}},
		{"Put", func(ctx context.Context) error { return s.Put(ctx, "part-0.parquet", bytes.NewReader([]byte("data"))) }},
		{"PutIfAbsent", func(ctx context.Context) error {
			return s.PutIfAbsent(ctx, "_delta_log/00000000000000000000.json", []byte("{}"))
		}},
		{"Delete", func(ctx context.Context) error { return s.Delete(ctx, "part-0.parquet") }},
	}
	type result struct {
		err  error
		took time.Duration
	}
	results := make([]result, len(ops))
	var wg sync.WaitGroup
	for i, op := range ops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// The context is only a safety net far beyond the bound: the
			// store itself must give up in time.
			ctx, cancel := context.WithTimeout(context.Background(), 10*within)
			defer cancel()
			begin := time.Now()
			err := op.run(ctx)
			results[i] = result{err, time.Since(begin)}
		}()
	}
	wg.Wait()
	out := map[string]error{}
	for i, op := range ops {
		err, took := results[i].err, results[i].took
		if err == nil {
			t.Errorf("%s on %s succeeded; want an error", op.name, s.URL())
			continue
		}
		out[op.name] = err
		msg := err.Error()
		t.Logf("%s failed in %v: %s", op.name, took.Round(time.Millisecond), msg)
		if took > within {
			t.Errorf("%s took %v to fail (bound %v): %v", op.name, took.Round(time.Millisecond), within, msg)
		}
		for _, sec := range secrets {
			if sec != "" && strings.Contains(msg, sec) {
				t.Errorf("%s error reveals a credential: %s", op.name, msg)
			}
		}
		if !strings.Contains(msg, s.URL()) {
			t.Errorf("%s error does not name the store %s: %s", op.name, s.URL(), msg)
		}
	}
	return out
}

// ClosedPortURL is an http URL on 127.0.0.1 where nothing listens: the
// endpoint of the unreachable-store failures.
func ClosedPortURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return fmt.Sprintf("http://127.0.0.1:%d", port)
}

// FakeServiceAccount is a well-formed Google service-account key whose token
// endpoint is tokenURL; it returns the key JSON and the strings of it that
// must never be shown (the JSON and the lines of the private key), ready for
// ExpectFailures.
func FakeServiceAccount(t *testing.T, tokenURL string) (string, []string) {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	b, err := json.Marshal(map[string]string{
		"type":           "service_account",
		"project_id":     "deltalite-test",
		"private_key_id": "0123456789abcdef",
		"private_key":    pemKey,
		"client_email":   "tester@deltalite-test.iam.gserviceaccount.com",
		"client_id":      "1234567890",
		"token_uri":      tokenURL,
	})
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{string(b)}
	for line := range strings.SplitSeq(pemKey, "\n") {
		if len(line) > 20 && !strings.HasPrefix(line, "-----") {
			secrets = append(secrets, line)
		}
	}
	return string(b), secrets
}
