package cloud

import (
	"context"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/storage"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestOptionsCaseAndAliases(t *testing.T) {
	cfg, err := s3Options.resolve(map[string]string{
		"aws_region":    "eu-west-1",
		"Endpoint":      "http://127.0.0.1:9000",
		"access_key_id": "AKID",
		"TOKEN":         "session-token-value",
	}, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		awsRegion:       "eu-west-1",
		awsEndpoint:     "http://127.0.0.1:9000",
		awsAccessKeyID:  "AKID",
		awsSessionToken: "session-token-value",
	} {
		if got := cfg.str(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	if len(cfg.secrets) != 1 || cfg.secrets[0] != "session-token-value" {
		t.Errorf("secrets = %q; want the session token only", cfg.secrets)
	}
}

func TestOptionsUnknownKeysAreNamed(t *testing.T) {
	_, err := s3Options.resolve(map[string]string{
		"AWS_REGION":                "us-east-1",
		"aws_secret_acess_key":      "typo-secret-value",  // misspelt
		"AZURE_STORAGE_ACCOUNT_KEY": "azure-secret-value", // another cloud's
	}, envOf(nil))
	if err == nil {
		t.Fatal("unknown keys accepted")
	}
	msg := err.Error()
	for _, want := range []string{"AWS_SECRET_ACESS_KEY", "AZURE_STORAGE_ACCOUNT_KEY", "S3"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not name %s", msg, want)
		}
	}
	for _, secret := range []string{"typo-secret-value", "azure-secret-value"} {
		if strings.Contains(msg, secret) {
			t.Errorf("error %q shows a value", msg)
		}
	}
}

func TestOptionsConflictingSpellings(t *testing.T) {
	_, err := s3Options.resolve(map[string]string{"AWS_ENDPOINT": "http://a", "AWS_ENDPOINT_URL": "http://b"}, envOf(nil))
	if err == nil || !strings.Contains(err.Error(), "AWS_ENDPOINT and AWS_ENDPOINT_URL") {
		t.Fatalf("conflicting spellings: %v", err)
	}
	if _, err := s3Options.resolve(map[string]string{"AWS_ENDPOINT": "http://a", "AWS_ENDPOINT_URL": "http://a"}, envOf(nil)); err != nil {
		t.Fatalf("two spellings with one value: %v", err)
	}
}

func TestOptionsFromEnvironment(t *testing.T) {
	env := envOf(map[string]string{
		"AWS_REGION":                          "env-region",
		"AWS_ACCESS_KEY_ID":                   "env-id",
		"AWS_SECRET_ACCESS_KEY":               "env-secret",
		"AWS_SESSION_TOKEN":                   "env-token",
		"AWS_ENDPOINT_URL":                    "http://env-endpoint",
		"ENDPOINT":                            "http://unprefixed-is-ignored",
		"DELTALITE_MULTIPART_THRESHOLD_BYTES": "10485760",
		"DELTALITE_MULTIPART_PART_SIZE_BYTES": "6291456",
	})
	// Explicit options win; the environment fills the rest.
	cfg, err := s3Options.resolve(map[string]string{"AWS_REGION": "opt-region"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.str(awsRegion) != "opt-region" || cfg.str(awsAccessKeyID) != "env-id" || cfg.str(awsSessionToken) != "env-token" || cfg.str(awsEndpoint) != "http://env-endpoint" {
		t.Fatalf("resolved %v", cfg.values)
	}
	mp, err := cfg.multipart()
	if err != nil || mp.Threshold != 10<<20 || mp.PartSize != 6<<20 || mp.Concurrency != DefaultMultipartConcurrency {
		t.Fatalf("multipart from environment = %+v, %v", mp, err)
	}
	// Credentials come from one source: explicit keys never pick up the
	// environment's session token.
	cfg, err = s3Options.resolve(map[string]string{"AWS_ACCESS_KEY_ID": "opt-id", "AWS_SECRET_ACCESS_KEY": "opt-secret"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.str(awsSessionToken) != "" || cfg.str(awsAccessKeyID) != "opt-id" {
		t.Fatalf("credentials mixed sources: %v", cfg.values)
	}
}

func TestMultipartDefaultsAndLimits(t *testing.T) {
	cfg, err := gcsOptions.resolve(nil, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	mp, err := cfg.multipart()
	if err != nil || mp != (uploadPlan{Threshold: 64 << 20, PartSize: 16 << 20, Concurrency: 4}) {
		t.Fatalf("defaults = %+v, %v", mp, err)
	}
	for _, bad := range []map[string]string{
		{"MULTIPART_PART_SIZE_BYTES": "1048576"},
		{"MULTIPART_THRESHOLD_BYTES": "0"},
		{"MULTIPART_CONCURRENCY": "0"},
		{"MULTIPART_THRESHOLD_BYTES": "lots"},
	} {
		cfg, err := gcsOptions.resolve(bad, envOf(nil))
		if err == nil {
			_, err = cfg.multipart()
		}
		if err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestParseLocation(t *testing.T) {
	for _, c := range []struct{ in, bucket, root, url string }{
		{"s3://bucket", "bucket", "", "s3://bucket"},
		{"s3://bucket/", "bucket", "", "s3://bucket"},
		{"s3://bucket/a/b/", "bucket", "a/b/", "s3://bucket/a/b"},
		{"gs://bucket/my%20table", "bucket", "my table/", "gs://bucket/my%20table"},
		{"abfss://fs@acct.dfs.core.windows.net/t", "fs", "t/", "abfss://fs@acct.dfs.core.windows.net/t"},
	} {
		u, _ := url.Parse(c.in)
		l, err := parseLocation(u)
		if err != nil || l.bucket != c.bucket || l.root != c.root || l.url != c.url {
			t.Errorf("parseLocation(%s) = %+v, %v; want bucket %q root %q url %q", c.in, l, err, c.bucket, c.root, c.url)
		}
	}
	for _, bad := range []string{"s3:///t", "s3://bucket/a/../b", "s3://bucket/a//b", "s3://bucket/t?x=1", "s3://key:pw-secret@bucket/t"} {
		u, _ := url.Parse(bad)
		if _, err := parseLocation(u); err == nil || strings.Contains(err.Error(), "pw-secret") {
			t.Errorf("parseLocation(%s) = %v; want an error that does not repeat credentials", bad, err)
		}
	}
	// A user part is a credential pasted in the wrong place, except an
	// Azure container.
	for _, bad := range []string{"s3://AKIAUSERPART@bucket/t", "s3a://AKIAUSERPART@bucket/t", "gs://AKIAUSERPART@bucket/t",
		"abfss://AKIAUSERPART@acct.dfs.core.windows.net/t", "az://AKIAUSERPART:x@acct.blob.core.windows.net/t"} {
		u, _ := url.Parse(bad)
		_, err := parseLocation(u)
		if err == nil || strings.Contains(err.Error(), "AKIAUSERPART") || !strings.Contains(err.Error(), "must not carry credentials") ||
			!strings.Contains(err.Error(), "storage options") || !strings.Contains(err.Error(), u.Host) {
			t.Errorf("parseLocation(%s) = %v; want an error naming where credentials go, without them", bad, err)
		}
	}
}

func TestAzureEndpointFromURL(t *testing.T) {
	key := "a2V5LWZvci10ZXN0cy1vbmx5" // base64, not a real key
	for _, c := range []struct{ in, endpoint string }{
		{"abfss://fs@acct.dfs.core.windows.net/t", "https://acct.blob.core.windows.net"},
		{"abfs://fs@acct.blob.core.windows.net/t", "https://acct.blob.core.windows.net"},
		{"abfss://fs@onelake.dfs.fabric.microsoft.com/t", "https://onelake.blob.fabric.microsoft.com"},
	} {
		u, _ := url.Parse(c.in)
		s, err := newAzureStore(context.Background(), u, map[string]string{"AZURE_STORAGE_ACCOUNT_KEY": key}, envOf(nil))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if !strings.HasSuffix(s.info.endpoint, c.endpoint) {
			t.Errorf("%s: endpoint %s, want %s", c.in, s.info.endpoint, c.endpoint)
		}
	}
	u, _ := url.Parse("abfss://fs@acct.dfs.core.windows.net/t")
	if _, err := newAzureStore(context.Background(), u, map[string]string{"AZURE_STORAGE_ACCOUNT_NAME": "other", "AZURE_STORAGE_ACCOUNT_KEY": key}, envOf(nil)); err == nil {
		t.Error("an account in the URL and a different one in the options were accepted")
	}
	u, _ = url.Parse("az://container/t")
	if _, err := newAzureStore(context.Background(), u, nil, envOf(nil)); err == nil || !strings.Contains(err.Error(), "AZURE_STORAGE_ACCOUNT_NAME") {
		t.Errorf("no account: %v; want an error naming AZURE_STORAGE_ACCOUNT_NAME", err)
	}
}

// TestOpenErrorsHideSecrets provokes set-up errors that involve a
// credential and checks the credential is not in the text.
func TestOpenErrorsHideSecrets(t *testing.T) {
	const secret = "do-not-show-this-secret-value"
	for _, c := range []struct {
		uri  string
		opts map[string]string
	}{
		{"s3://bucket/t", map[string]string{"AWS_SECRET_ACCESS_KEY": secret}},                                      // no key id
		{"s3://bucket/t", map[string]string{"AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": secret, "x": "1"}}, // unknown key
		{"s3://bucket/t", map[string]string{"AWS_ENDPOINT_URL": "http://user:" + secret + "@host"}},
		{"az://c/t", map[string]string{"AZURE_STORAGE_ACCOUNT_NAME": "a", "AZURE_STORAGE_ACCOUNT_KEY": secret + "!not-base64"}},
		{"az://c/t", map[string]string{"AZURE_STORAGE_ACCOUNT_NAME": "a", "AZURE_STORAGE_CLIENT_SECRET": secret}},
		{"gs://b/t", map[string]string{"GOOGLE_SERVICE_ACCOUNT_KEY": `{"type":"service_account","private_key":"` + secret + `"}`}},
		{"gs://b/t", map[string]string{"GOOGLE_SERVICE_ACCOUNT_KEY": secret}},
		{"s3://id:" + secret + "@bucket/t", nil},
	} {
		_, err := storage.Open(context.Background(), c.uri, c.opts)
		if err == nil {
			t.Errorf("Open(%s, ...) succeeded; want an error", strings.ReplaceAll(c.uri, secret, "***"))
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("error reveals the secret: %v", err)
		}
		t.Logf("%v", err)
	}
}

func TestURLNeverShowsCredentials(t *testing.T) {
	const secret = "url-secret-value-123456"
	for _, c := range []struct {
		uri  string
		opts map[string]string
	}{
		{"s3://bucket/t", map[string]string{"AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": secret, "AWS_SESSION_TOKEN": secret}},
		{"az://c/t", map[string]string{"AZURE_STORAGE_ACCOUNT_NAME": "a", "AZURE_STORAGE_SAS_TOKEN": "sv=2024&sig=" + secret}},
		{"abfss://c@a.dfs.core.windows.net/t", map[string]string{"AZURE_STORAGE_ACCOUNT_KEY": "a2V5LWZvci10ZXN0cy1vbmx5"}},
		{"gs://b/t", map[string]string{"STORAGE_EMULATOR_HOST": "127.0.0.1:1", "GOOGLE_SERVICE_ACCOUNT_KEY": secret}},
	} {
		s, err := storage.Open(context.Background(), c.uri, c.opts)
		if err != nil {
			t.Fatalf("Open(%s): %v", c.uri, err)
		}
		if s.URL() != c.uri || strings.Contains(s.URL(), secret) {
			t.Errorf("URL() = %s; want %s", s.URL(), c.uri)
		}
	}
}

func TestRedactor(t *testing.T) {
	sas := "sv=2024-05-04&ss=b&sig=abc%2Bdef%3D&se=2030"
	r := newRedactor([]string{sas, "plain-secret-value", "{\"private_key\":\"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQ\\n-----END PRIVATE KEY-----\\n\"}", "abc"})
	for _, leak := range []string{
		"GET https://a.blob.core.windows.net/c/k?se=2030&sig=abc%2Bdef%3D&sv=2024-05-04", // reordered
		"signature abc+def= rejected",
		"bad key plain-secret-value",
		"key line MIIEvQIBADANBgkqhkiG9w0BAQ seen",
	} {
		out := r.scrub(leak)
		for _, s := range []string{"abc%2Bdef%3D", "abc+def=", "plain-secret-value", "MIIEvQIBADANBgkqhkiG9w0BAQ"} {
			if strings.Contains(out, s) {
				t.Errorf("scrub(%q) = %q still shows %q", leak, out, s)
			}
		}
	}
	if got := r.scrub("abc is a short word"); got != "abc is a short word" {
		t.Errorf("a very short secret blanked ordinary text: %q", got)
	}
}

// TestDocsListEveryOption keeps docs/storage.md in step with the code.
func TestDocsListEveryOption(t *testing.T) {
	doc, err := os.ReadFile("../../docs/storage.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []*optionSet{s3Options, azureOptions, gcsOptions} {
		for _, sp := range set.specs {
			names := append([]string{sp.key}, sp.aliases...)
			found := false
			for _, n := range names {
				if strings.Contains(string(doc), "`"+n+"`") {
					found = true
				}
			}
			if !found {
				t.Errorf("docs/storage.md does not mention the %s option %s", set.cloud, sp.key)
			}
		}
	}
}
