package cloudtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/storage"
)

// failBound is how long a broken configuration may take to fail.
const failBound = 10 * time.Second

// noSecret fails the test if text shows any of the secrets.
func noSecret(t *testing.T, what, text string, secrets ...string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(text, s) {
			t.Fatalf("%s shows a secret (%d characters):\n%s", what, len(s), text)
		}
	}
}

// TestBadConfiguration: wrong credentials, a missing bucket and an
// unreachable endpoint make Open, IsDeltaTable and Write fail within
// failBound with an error that says what is wrong, is not "table not
// found" and shows no secret; and nothing is written.
func TestBadConfiguration(t *testing.T) {
	eachCloud(t, true, func(t *testing.T, c *cloud) {
		for _, bc := range c.bad(t) {
			t.Run(bc.name, func(t *testing.T) {
				secrets := append(slices.Clone(c.secrets), bc.secrets...)
				so := deltalite.WithStorageOptions(bc.opts)
				expect := func(op string, run func(ctx context.Context) error) {
					t.Helper()
					ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
					defer cancel()
					started := time.Now()
					err := run(ctx)
					took := time.Since(started)
					switch {
					case err == nil:
						t.Fatalf("%s succeeded", op)
					case took > failBound:
						t.Fatalf("%s took %v to fail (bound %v): %v", op, took.Round(time.Millisecond), failBound, err)
					case errors.Is(err, deltalite.ErrTableNotFound):
						t.Fatalf("%s: %v; a broken configuration must not look like a missing table", op, err)
					case !strings.Contains(err.Error(), bc.want):
						t.Fatalf("%s: %v; want an error saying %q", op, err, bc.want)
					}
					noSecret(t, op+"'s error", err.Error(), secrets...)
					noSecret(t, op+"'s error", fmt.Sprintf("%+v %#v", err, err), secrets...)
					t.Logf("%s failed in %v: %v", op, took.Round(time.Millisecond), err)
				}
				expect("Open", func(ctx context.Context) error {
					_, err := deltalite.Open(ctx, bc.uri, so)
					return err
				})
				expect("IsDeltaTable", func(ctx context.Context) error {
					_, err := deltalite.IsDeltaTable(ctx, bc.uri, so)
					return err
				})
				expect("Write", func(ctx context.Context) error {
					src := people(person{1, "a", "d"})
					defer src.Release()
					_, err := deltalite.Write(ctx, bc.uri, src, deltalite.WriteOptions{Mode: deltalite.ModeAppend, StorageOptions: bc.opts})
					return err
				})
				if bc.name == "MissingBucket" {
					// Still no bucket: listing it with good options says so.
					_, err := storage.Collect(ctxFor(t, 30*time.Second), c.store(t, bc.uri), "", "")
					if err == nil || !strings.Contains(err.Error(), "does not exist") {
						t.Fatalf("the missing bucket: %v", err)
					}
				} else if keys := c.keys(t, bc.uri); len(keys) > 0 {
					t.Fatalf("a failed write left objects: %v", keys)
				}
			})
		}
	})
}

// TestSecretsStayHidden: after a successful write through the root API
// the table's commits (History, and every log file byte for byte) hold no
// credential.
func TestSecretsStayHidden(t *testing.T) {
	eachCloud(t, true, func(t *testing.T, c *cloud) {
		if len(c.secrets) == 0 {
			t.Skipf("%s's test server takes no credential", c.name)
		}
		uri := c.tableURI("secrets-")
		c.write(t, uri, people(person{1, "a", "d1"}), deltalite.WriteOptions{PartitionBy: []string{"day"}, CommitMetadata: map[string]any{"job": "nightly"}})
		c.write(t, uri, people(person{2, "b", "d2"}), deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "day = 'd2'"})
		hist, err := c.open(t, uri).History(ctxFor(t, 30*time.Second), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != 2 || hist[1].Info.Raw["job"] != "nightly" {
			t.Fatalf("history: %+v", hist)
		}
		b, err := json.Marshal(hist)
		if err != nil {
			t.Fatal(err)
		}
		noSecret(t, "History as JSON", string(b), c.secrets...)
		st := c.store(t, uri)
		for _, k := range c.keys(t, uri) {
			if !strings.HasPrefix(k, "_delta_log/") {
				continue
			}
			data, err := storage.ReadAll(ctxFor(t, 30*time.Second), st, k)
			if err != nil {
				t.Fatal(err)
			}
			noSecret(t, k, string(data), c.secrets...)
		}
	})
}

// cliDir holds the CLI binary; TestMain removes it.
var cliDir string

// cli builds cmd/deltalite once per test binary.
var cli = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "deltalite-cli-")
	if err != nil {
		return "", err
	}
	cliDir = dir
	bin := filepath.Join(dir, "deltalite")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/deltalite-go/deltalite/cmd/deltalite")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/deltalite: %v\n%s", err, out)
	}
	return bin, nil
})

// runCLI runs the CLI with the storage options as flags (or, when env is
// true, as environment variables) and returns its output and exit error.
func runCLI(t *testing.T, opts map[string]string, env bool, args ...string) (stdout, stderr string, took time.Duration, err error) {
	t.Helper()
	bin, berr := cli()
	if berr != nil {
		t.Fatal(berr)
	}
	cmd := exec.Command(bin, args...)
	// Only the given options: no stray credentials from the test's own
	// environment.
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); !strings.HasPrefix(k, "AWS_") && !strings.HasPrefix(k, "AZURE_") && !strings.HasPrefix(k, "GOOGLE_") && k != "STORAGE_EMULATOR_HOST" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for k, v := range opts {
		if env {
			cmd.Env = append(cmd.Env, k+"="+v)
		} else {
			cmd.Args = append(cmd.Args, "--storage-option", k+"="+v)
		}
	}
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	started := time.Now()
	err = cmd.Run()
	return o.String(), e.String(), time.Since(started), err
}

// TestCLISecrets: every command of the CLI (create, write, upsert, scan,
// history, inspect) runs on each store with the storage options as
// --storage-option flags, and history also with them in the environment,
// printing no credential; no object of the table holds one; and wrong
// credentials or a credential in the table URL fail fast showing neither
// the wrong nor the right value. The GCS emulator takes no credential: a
// canary service-account key stands in, which must not show either.
func TestCLISecrets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the CLI: skipped in -short mode")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build the CLI with")
	}
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	csv := file("people.csv", "id,name,day\n1,a,d1\n2,b,d2\n")
	changes := file("changes.csv", "id,name,day\n2,bb,d2\n3,c,d3\n")
	schemaFile := file("schema.json", `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"name","type":"string","nullable":true,"metadata":{}},{"name":"day","type":"string","nullable":true,"metadata":{}}]}`)
	eachCloud(t, false, func(t *testing.T, c *cloud) {
		opts, secrets := c.opts, c.secrets
		if len(secrets) == 0 {
			canary := "canary-key-" + uniqueName("")
			opts, secrets = with(opts, map[string]string{"GOOGLE_SERVICE_ACCOUNT_KEY": canary}), []string{canary}
		}
		uri := c.tableURI("cli-")
		cli := func(env bool, args ...string) string {
			t.Helper()
			out, errOut, _, err := runCLI(t, opts, env, args...)
			if err != nil {
				t.Fatalf("deltalite %s (options from the environment: %v): %v\n%s%s", args[0], env, err, out, errOut)
			}
			noSecret(t, "deltalite "+args[0], out+errOut, secrets...)
			return out
		}
		cli(false, "create", uri, "--schema", schemaFile, "--partition-by", "day")
		var res map[string]any
		if out := cli(false, "write", uri, "--input", csv, "--json"); json.Unmarshal([]byte(out), &res) != nil {
			t.Fatalf("write --json printed %q", out)
		}
		cli(false, "upsert", uri, "--input", changes, "--pk", "id")
		if out := cli(false, "scan", uri, "--format", "csv"); !strings.Contains(out, "2,bb,d2") || !strings.Contains(out, "3,c,d3") {
			t.Fatalf("scan after the upsert:\n%s", out)
		}
		cli(false, "inspect", uri, "--json")
		for _, env := range []bool{false, true} {
			var hist []map[string]any
			if out := cli(env, "history", uri, "--json"); json.Unmarshal([]byte(out), &hist) != nil || len(hist) != 3 || hist[2]["operation"] != "CREATE TABLE" {
				t.Fatalf("history --json (options from the environment: %v):\n%s", env, out)
			}
		}
		_, rows := c.readLines(t, uri)
		sameLines(t, "table written by the CLI", rows, lines(person{1, "a", "d1"}, person{2, "bb", "d2"}, person{3, "c", "d3"}))
		st := c.store(t, uri)
		for _, k := range c.keys(t, uri) {
			data, err := storage.ReadAll(ctxFor(t, 30*time.Second), st, k)
			if err != nil {
				t.Fatal(err)
			}
			noSecret(t, k, string(data), secrets...)
		}

		for _, bc := range c.bad(t) {
			if bc.name != "WrongCredentials" {
				continue
			}
			all := append(slices.Clone(secrets), bc.secrets...)
			out, errOut, took, err := runCLI(t, bc.opts, false, "history", uri, "--json")
			if err == nil || took > failBound || !strings.Contains(errOut, bc.want) {
				t.Fatalf("history with wrong credentials: %v after %v\n%s%s", err, took, out, errOut)
			}
			noSecret(t, "the CLI's error", out+errOut, all...)
			t.Logf("CLI with wrong credentials failed in %v: %s", took.Round(time.Millisecond), strings.TrimSpace(errOut))
		}
		// A credential pasted into the URL is refused before any request.
		pasted := "CanaryUser" + uniqueName("")
		bad := strings.Replace(uri, "://", "://"+pasted+"@", 1)
		out, errOut, took, err := runCLI(t, opts, false, "history", bad)
		if err == nil || took > failBound || !strings.Contains(errOut, "must not carry credentials") {
			t.Fatalf("history on %s: %v after %v\n%s%s", bad, err, took, out, errOut)
		}
		noSecret(t, "the CLI's error", out+errOut, append(slices.Clone(secrets), pasted)...)
	})
}
