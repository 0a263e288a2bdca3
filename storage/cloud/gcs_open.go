package cloud

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/auth/credentials"
	"cloud.google.com/go/auth/httptransport"
	"cloud.google.com/go/storage"
	"github.com/googleapis/gax-go/v2"
	"google.golang.org/api/option"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// GCS option keys, as object_store spells them, plus the emulator host the
// Google SDKs read and an endpoint override for private endpoints.
const (
	gcsServiceAccount    = "GOOGLE_SERVICE_ACCOUNT" // path to a key file
	gcsServiceAccountKey = "GOOGLE_SERVICE_ACCOUNT_KEY"
	gcsAppCredentials    = "GOOGLE_APPLICATION_CREDENTIALS"
	gcsSkipSignature     = "GOOGLE_SKIP_SIGNATURE"
	gcsEmulatorHost      = "STORAGE_EMULATOR_HOST"
	gcsEndpoint          = "GOOGLE_STORAGE_ENDPOINT"
)

var gcsOptions = newOptionSet("GCS", "GOOGLE_", []optionSpec{
	{key: gcsServiceAccount, aliases: []string{"SERVICE_ACCOUNT", "GOOGLE_SERVICE_ACCOUNT_PATH", "SERVICE_ACCOUNT_PATH"}, group: "credentials"},
	{key: gcsServiceAccountKey, aliases: []string{"SERVICE_ACCOUNT_KEY"}, secret: true, group: "credentials"},
	{key: gcsAppCredentials, aliases: []string{"APPLICATION_CREDENTIALS"}, group: "credentials"},
	{key: gcsSkipSignature, aliases: []string{"SKIP_SIGNATURE"}, group: "credentials"},
	{key: gcsEmulatorHost},
	{key: gcsEndpoint},
})

const gcsCredentialHint = "GOOGLE_SERVICE_ACCOUNT / GOOGLE_SERVICE_ACCOUNT_KEY / GOOGLE_APPLICATION_CREDENTIALS, or Application Default Credentials"

// newGCSStore opens gs://bucket/path.
func newGCSStore(ctx context.Context, u *url.URL, given map[string]string, getenv func(string) string) (*store, error) {
	loc, cfg, err := gcsOptions.open(u, given, getenv)
	if err != nil {
		return nil, err
	}
	emulator := cfg.str(gcsEmulatorHost)
	cs, mp, err := cfg.transport(emulator != "")
	if err != nil {
		return nil, err
	}
	skip, err := cfg.bool(gcsSkipSignature)
	if err != nil {
		return nil, err
	}
	red := newRedactor(cfg.secrets)

	var opts []option.ClientOption
	where := "Google Cloud Storage"
	rawReads := true
	switch {
	case emulator != "":
		if !strings.Contains(emulator, "://") {
			emulator = "http://" + emulator
		}
		e, err := cs.checkEndpoint(gcsEmulatorHost, emulator)
		if err != nil {
			return nil, err
		}
		where = fmt.Sprintf("the GCS emulator %s", e)
		opts = append(opts, option.WithEndpoint(e.String()+"/storage/v1/"), option.WithoutAuthentication(),
			option.WithHTTPClient(cs.httpClient()), storage.WithJSONReads())
		rawReads = false
	default:
		if cfg.has(gcsEndpoint) {
			e, err := cs.checkEndpoint(gcsEndpoint, cfg.str(gcsEndpoint))
			if err != nil {
				return nil, err
			}
			where = fmt.Sprintf("the GCS endpoint %s", e)
			opts = append(opts, option.WithEndpoint(e.String()+"/storage/v1/"), storage.WithJSONReads())
			rawReads = false
		}
		hc, err := gcsHTTPClient(cfg, cs, skip)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, loc.url, red.wrap(err), "setting up Google credentials")
		}
		opts = append(opts, option.WithHTTPClient(hc))
	}
	client, err := storage.NewClient(ctx, opts...)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, loc.url, red.wrap(err), "creating the GCS client")
	}
	client.SetRetry(
		storage.WithBackoff(gax.Backoff{Initial: retryBase, Max: cs.maxBackoff, Multiplier: 2}),
		storage.WithMaxAttempts(cs.maxRetries+1),
		storage.WithErrorFunc(gcsShouldRetry),
	)
	return &store{
		b: &gcsBackend{bucket: client.Bucket(loc.bucket), rawReads: rawReads},
		info: storeInfo{url: loc.url, bucket: loc.bucket, bucketWord: "bucket", root: loc.root,
			endpoint: where, credentialHint: gcsCredentialHint},
		mp:  mp,
		red: red,
	}, nil
}

// gcsHTTPClient authenticates with a service-account key (inline or in a
// file), a credentials file of any type, nothing (public buckets), or
// Application Default Credentials, over a transport with our timeouts.
func gcsHTTPClient(cfg *config, cs clientSettings, skip bool) (*http.Client, error) {
	base := cs.httpClient()
	if skip {
		return base, nil
	}
	dopts := &credentials.DetectOptions{Scopes: []string{storage.ScopeFullControl}, Client: base}
	var creds *auth.Credentials
	var err error
	switch {
	case cfg.has(gcsServiceAccountKey):
		creds, err = credentials.NewCredentialsFromJSON(credentials.ServiceAccount, []byte(cfg.str(gcsServiceAccountKey)), dopts)
		if err != nil {
			return nil, fmt.Errorf("%s is not a usable service-account key: %w", gcsServiceAccountKey, err)
		}
	case cfg.has(gcsServiceAccount):
		creds, err = credentialsFromFile(cfg.str(gcsServiceAccount), gcsServiceAccount, dopts)
	case cfg.has(gcsAppCredentials):
		creds, err = credentialsFromFile(cfg.str(gcsAppCredentials), gcsAppCredentials, dopts)
	default:
		creds, err = credentials.DetectDefault(dopts)
		if err != nil {
			return nil, fmt.Errorf("no Google credentials found (%s): %w", gcsCredentialHint, err)
		}
	}
	if err != nil {
		return nil, err
	}
	return httptransport.NewClient(&httptransport.Options{Credentials: creds, BaseRoundTripper: base.Transport})
}

// credentialsFromFile reads a credentials file of the type it declares.
// Errors name the option and the file, never its content.
func credentialsFromFile(path, key string, dopts *credentials.DetectOptions) (*auth.Credentials, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: cannot read %s: %w", key, path, err)
	}
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(b, &head) != nil || head.Type == "" {
		return nil, fmt.Errorf("%s: %s is not a Google credentials JSON file", key, path)
	}
	creds, err := credentials.NewCredentialsFromJSON(credentials.CredType(head.Type), b, dopts)
	if err != nil {
		return nil, fmt.Errorf("%s: %s is not usable: %w", key, path, err)
	}
	return creds, nil
}
