package cloud

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// Azure option keys, as object_store spells them.
const (
	azAccountName  = "AZURE_STORAGE_ACCOUNT_NAME"
	azAccountKey   = "AZURE_STORAGE_ACCOUNT_KEY"
	azClientID     = "AZURE_STORAGE_CLIENT_ID"
	azClientSecret = "AZURE_STORAGE_CLIENT_SECRET"
	azTenantID     = "AZURE_STORAGE_TENANT_ID"
	azAuthority    = "AZURE_STORAGE_AUTHORITY_HOST"
	azSAS          = "AZURE_STORAGE_SAS_KEY"
	azToken        = "AZURE_STORAGE_TOKEN"
	azUseEmulator  = "AZURE_STORAGE_USE_EMULATOR"
	azEndpoint     = "AZURE_STORAGE_ENDPOINT"
	azUseCLI       = "AZURE_USE_AZURE_CLI"
	azSkipSig      = "AZURE_SKIP_SIGNATURE"
)

var azureOptions = newOptionSet("Azure", "AZURE_", []optionSpec{
	{key: azAccountName, aliases: []string{"ACCOUNT_NAME"}},
	{key: azAccountKey, aliases: []string{"AZURE_STORAGE_ACCESS_KEY", "AZURE_STORAGE_MASTER_KEY", "MASTER_KEY", "ACCOUNT_KEY", "ACCESS_KEY"}, secret: true, group: "credentials"},
	{key: azClientID, aliases: []string{"AZURE_CLIENT_ID", "CLIENT_ID"}, group: "credentials"},
	{key: azClientSecret, aliases: []string{"AZURE_CLIENT_SECRET", "CLIENT_SECRET"}, secret: true, group: "credentials"},
	{key: azTenantID, aliases: []string{"AZURE_STORAGE_AUTHORITY_ID", "AZURE_TENANT_ID", "AZURE_AUTHORITY_ID", "TENANT_ID", "AUTHORITY_ID"}, group: "credentials"},
	{key: azAuthority, aliases: []string{"AZURE_AUTHORITY_HOST", "AUTHORITY_HOST"}},
	{key: azSAS, aliases: []string{"AZURE_STORAGE_SAS_TOKEN", "SAS_KEY", "SAS_TOKEN"}, secret: true, group: "credentials"},
	{key: azToken, aliases: []string{"BEARER_TOKEN", "TOKEN"}, secret: true, group: "credentials"},
	{key: azUseCLI, aliases: []string{"USE_AZURE_CLI"}, group: "credentials"},
	{key: azSkipSig, aliases: []string{"SKIP_SIGNATURE"}, group: "credentials"},
	{key: azUseEmulator, aliases: []string{"USE_EMULATOR"}},
	{key: azEndpoint, aliases: []string{"AZURE_ENDPOINT", "ENDPOINT"}},
})

// Azurite's documented development account; not a secret, but treated as
// one like any account key.
const (
	emulatorAccount  = "devstoreaccount1"
	emulatorKey      = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
	emulatorEndpoint = "http://127.0.0.1:10000/" + emulatorAccount
)

const azureCredentialHint = "AZURE_STORAGE_ACCOUNT_KEY, AZURE_STORAGE_SAS_TOKEN, AZURE_CLIENT_ID / AZURE_CLIENT_SECRET / AZURE_TENANT_ID, or the Azure credential chain"

// newAzureStore opens az://container/path, azure://, adl://, abfs[s]:// and
// abfs[s]://container@account.dfs.core.windows.net/path.
func newAzureStore(_ context.Context, u *url.URL, given map[string]string, getenv func(string) string) (*store, error) {
	loc, cfg, err := azureOptions.open(u, given, getenv)
	if err != nil {
		return nil, err
	}
	emulator, err := cfg.bool(azUseEmulator)
	if err != nil {
		return nil, err
	}
	cs, mp, err := cfg.transport(emulator)
	if err != nil {
		return nil, err
	}
	account, hostSuffix, err := azureAccount(loc, cfg, emulator)
	if err != nil {
		return nil, err
	}
	var endpoint string
	switch {
	case cfg.has(azEndpoint):
		e, err := cs.checkEndpoint(azEndpoint, cfg.str(azEndpoint))
		if err != nil {
			return nil, err
		}
		endpoint = e.String()
	case emulator:
		endpoint = emulatorEndpoint
	default:
		endpoint = "https://" + account + ".blob." + hostSuffix
	}
	if emulator && !cfg.has(azAccountKey) && !cfg.has(azSAS) {
		cfg.values[azAccountKey] = emulatorKey
	}
	red := newRedactor(append(cfg.secrets, cfg.str(azAccountKey)))

	copts := &container.ClientOptions{}
	copts.Transport = cs.httpClient()
	copts.Retry = policy.RetryOptions{
		MaxRetries:    int32(cs.maxRetries),
		RetryDelay:    retryBase,
		MaxRetryDelay: cs.maxBackoff,
	}
	if cs.maxRetries == 0 {
		copts.Retry.MaxRetries = -1 // azcore reads 0 as "the default"
	}
	containerURL := endpoint + "/" + url.PathEscape(loc.bucket)
	client, err := azureClient(cfg, account, containerURL, copts)
	if err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, loc.url, red.wrap(err), "setting up Azure credentials")
	}
	return &store{
		b: &azureBackend{client: client},
		info: storeInfo{url: loc.url, bucket: loc.bucket, bucketWord: "container", root: loc.root,
			endpoint: fmt.Sprintf("the Azure endpoint %s", endpoint), credentialHint: azureCredentialHint},
		mp:  mp,
		red: red,
	}, nil
}

// azureAccount finds the storage account (from the URL's host or the
// options) and the DNS suffix of its endpoints.
func azureAccount(loc location, cfg *config, emulator bool) (account, suffix string, err error) {
	account, suffix = cfg.str(azAccountName), "core.windows.net"
	if loc.host != "" {
		// account.dfs.core.windows.net, account.blob.core.windows.net,
		// account.dfs.fabric.microsoft.com, ...
		parts := strings.SplitN(loc.host, ".", 3)
		if len(parts) != 3 || (parts[1] != "dfs" && parts[1] != "blob") {
			return "", "", errs.New(errs.InvalidArgument, loc.url, "Azure URL host %q is not <account>.dfs.<suffix> or <account>.blob.<suffix>", loc.host)
		}
		if account != "" && !strings.EqualFold(account, parts[0]) {
			return "", "", errs.New(errs.InvalidArgument, loc.url, "the URL names account %q but %s is %q", parts[0], azAccountName, account)
		}
		account, suffix = parts[0], parts[2]
	}
	if account == "" && emulator {
		account = emulatorAccount
	}
	if account == "" && !cfg.has(azEndpoint) {
		return "", "", errs.New(errs.InvalidArgument, loc.url, "no Azure storage account: set %s or use %s://<container>@<account>.dfs.core.windows.net/<path>", azAccountName, loc.scheme)
	}
	return account, suffix, nil
}

// azureClient picks the credential: SAS, account key, bearer token,
// service principal, Azure CLI, anonymous, or else the default chain
// (environment, workload identity, managed identity, CLI).
func azureClient(cfg *config, account, containerURL string, copts *container.ClientOptions) (*container.Client, error) {
	skip, err := cfg.bool(azSkipSig)
	if err != nil {
		return nil, err
	}
	useCLI, err := cfg.bool(azUseCLI)
	if err != nil {
		return nil, err
	}
	idOpts := azcore.ClientOptions{Transport: copts.Transport, Retry: copts.Retry}
	if h := cfg.str(azAuthority); h != "" {
		idOpts.Cloud = cloud.Configuration{ActiveDirectoryAuthorityHost: h}
	}
	switch {
	case skip:
		return container.NewClientWithNoCredential(containerURL, copts)
	case cfg.has(azSAS):
		return container.NewClientWithNoCredential(containerURL+"?"+strings.TrimPrefix(cfg.str(azSAS), "?"), copts)
	case cfg.has(azAccountKey):
		if account == "" {
			return nil, fmt.Errorf("an account key needs the account name (%s)", azAccountName)
		}
		cred, err := container.NewSharedKeyCredential(account, cfg.str(azAccountKey))
		if err != nil {
			return nil, fmt.Errorf("the account key is not valid base64")
		}
		return container.NewClientWithSharedKeyCredential(containerURL, cred, copts)
	case cfg.has(azToken):
		return container.NewClient(containerURL, staticToken(cfg.str(azToken)), copts)
	case cfg.has(azClientSecret):
		if !cfg.has(azClientID) || !cfg.has(azTenantID) {
			return nil, fmt.Errorf("a client secret needs %s and %s", azClientID, azTenantID)
		}
		cred, err := azidentity.NewClientSecretCredential(cfg.str(azTenantID), cfg.str(azClientID), cfg.str(azClientSecret),
			&azidentity.ClientSecretCredentialOptions{ClientOptions: idOpts})
		if err != nil {
			return nil, err
		}
		return container.NewClient(containerURL, cred, copts)
	case useCLI:
		cred, err := azidentity.NewAzureCLICredential(&azidentity.AzureCLICredentialOptions{TenantID: cfg.str(azTenantID)})
		if err != nil {
			return nil, err
		}
		return container.NewClient(containerURL, cred, copts)
	}
	cred, err := azidentity.NewDefaultAzureCredential(&azidentity.DefaultAzureCredentialOptions{ClientOptions: idOpts, TenantID: cfg.str(azTenantID)})
	if err != nil {
		return nil, err
	}
	return container.NewClient(containerURL, cred, copts)
}

// staticToken is a bearer token the caller obtained elsewhere.
type staticToken string

func (t staticToken) GetToken(context.Context, policy.TokenRequestOptions) (azcore.AccessToken, error) {
	return azcore.AccessToken{Token: string(t), ExpiresOn: time.Now().Add(time.Hour)}, nil
}
