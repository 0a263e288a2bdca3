package cloud

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/storage/storetest"
	"github.com/deltalite-go/deltalite/testkit/testservers"
)

const azureTestContainer = "deltalite-test"

var azureContainerOnce sync.Map // endpoint -> func() error

func azureContainerClient(t *testing.T, srv *testservers.AzureServer) *container.Client {
	t.Helper()
	cred, err := container.NewSharedKeyCredential(srv.Account, srv.Key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := container.NewClientWithSharedKeyCredential(srv.Endpoint+"/"+azureTestContainer, cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// azureServer starts Azurite and makes sure the test container exists.
func azureServer(t *testing.T) *testservers.AzureServer {
	t.Helper()
	srv := testservers.Azurite(t)
	c := azureContainerClient(t, srv)
	v, _ := azureContainerOnce.LoadOrStore(srv.Endpoint, sync.OnceValue(func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err := c.Create(ctx, nil)
		return err
	}))
	if err := v.(func() error)(); err != nil {
		t.Fatalf("creating container %s: %v", azureTestContainer, err)
	}
	return srv
}

// azureTestOptions use the emulator switch with Azurite's endpoint: the
// well-known account and key, plain http allowed.
func azureTestOptions(srv *testservers.AzureServer) map[string]string {
	return map[string]string{
		"AZURE_STORAGE_USE_EMULATOR": "true",
		"AZURE_STORAGE_ENDPOINT":     srv.Endpoint,
	}
}

func TestAzureConformance(t *testing.T) {
	// Deletes are one request each: no batch boundary to cross.
	runConformance(t, "az://"+azureTestContainer+"/", azureTestOptions(azureServer(t)), 300)
}

// TestAzureURLForms opens the same container through each scheme and the
// ADLS Gen2 form with the account in the host, with explicit account
// name and key.
func TestAzureURLForms(t *testing.T) {
	srv := azureServer(t)
	ctx := context.Background()
	opts := map[string]string{
		"AZURE_STORAGE_ACCOUNT_NAME": srv.Account,
		"AZURE_STORAGE_ACCOUNT_KEY":  srv.Key,
		"AZURE_STORAGE_ENDPOINT":     srv.Endpoint,
		"AZURE_ALLOW_HTTP":           "true",
	}
	dir := uniqueName("forms-")
	first := openStore(t, "abfss://"+azureTestContainer+"@"+srv.Account+".dfs.core.windows.net/"+dir, opts)
	if want := "abfss://" + azureTestContainer + "@" + srv.Account + ".dfs.core.windows.net/" + dir; first.URL() != want {
		t.Fatalf("URL() = %s, want %s", first.URL(), want)
	}
	if err := first.PutIfAbsent(ctx, "_delta_log/00000000000000000000.json", []byte("v0")); err != nil {
		t.Fatal(err)
	}
	for _, scheme := range []string{"az", "azure", "adl", "abfs", "abfss"} {
		s := openStore(t, scheme+"://"+azureTestContainer+"/"+dir, opts)
		b, err := storage.ReadAll(ctx, s, "_delta_log/00000000000000000000.json")
		if err != nil || string(b) != "v0" {
			t.Errorf("%s: ReadAll = %q, %v", scheme, b, err)
		}
	}
}

// TestAzureSAS reads and writes with a container SAS token, and checks that
// a forged one fails without showing its signature.
func TestAzureSAS(t *testing.T) {
	srv := azureServer(t)
	ctx := context.Background()
	c := azureContainerClient(t, srv)
	perms := sas.ContainerPermissions{Read: true, Add: true, Create: true, Write: true, Delete: true, List: true}
	sasURL, err := c.GetSASURL(perms, time.Now().Add(time.Hour), nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(sasURL)
	if err != nil {
		t.Fatal(err)
	}
	token := u.RawQuery
	opts := map[string]string{
		"AZURE_STORAGE_ACCOUNT_NAME": srv.Account,
		"AZURE_STORAGE_SAS_TOKEN":    token,
		"AZURE_STORAGE_ENDPOINT":     srv.Endpoint,
		"AZURE_ALLOW_HTTP":           "true",
	}
	s := openStore(t, "az://"+azureTestContainer+"/"+uniqueName("sas-"), opts)
	if err := s.PutIfAbsent(ctx, "k", []byte("v")); err != nil {
		t.Fatalf("PutIfAbsent with SAS: %v", err)
	}
	if strings.Contains(s.URL(), "sig") {
		t.Fatalf("URL() shows the SAS token: %s", s.URL())
	}

	q := u.Query()
	sig := q.Get("sig")
	forged := "AAAA" + sig[4:]
	if forged == sig {
		forged = "BBBB" + sig[4:]
	}
	q.Set("sig", forged)
	bad := withOptions(opts, map[string]string{"AZURE_STORAGE_SAS_TOKEN": q.Encode()})
	s = openStore(t, "az://"+azureTestContainer+"/"+uniqueName("sas-"), bad)
	got := storetest.ExpectFailures(t, s, 10*time.Second, forged, url.QueryEscape(forged), q.Encode(), sig, token)
	for op, err := range got {
		if !strings.Contains(err.Error(), "access denied") {
			t.Errorf("%s: %v; want access denied", op, err)
		}
	}
}

func TestAzureFailures(t *testing.T) {
	srv := azureServer(t)
	const bound = 10 * time.Second
	t.Run("WrongKey", func(t *testing.T) {
		raw := make([]byte, 64)
		_, _ = rand.Read(raw)
		wrong := base64.StdEncoding.EncodeToString(raw)
		opts := withOptions(azureTestOptions(srv), map[string]string{"AZURE_STORAGE_ACCOUNT_KEY": wrong})
		s := openStore(t, "az://"+azureTestContainer+"/t", opts)
		for op, err := range storetest.ExpectFailures(t, s, bound, wrong, srv.Key) {
			if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), "access denied") {
				t.Errorf("%s: %v; want access denied", op, err)
			}
		}
	})
	t.Run("MissingContainer", func(t *testing.T) {
		s := openStore(t, "az://no-such-container-"+uniqueName("")+"/t", azureTestOptions(srv))
		for op, err := range storetest.ExpectFailures(t, s, bound, srv.Key) {
			if op == "Head" || op == "Open" {
				continue // a HEAD response may not say which is missing
			}
			if !strings.Contains(err.Error(), "does not exist") || errors.Is(err, storage.ErrNotExist) {
				t.Errorf("%s: %v; want a missing-container error that is not ErrNotExist", op, err)
			}
		}
	})
	t.Run("UnreachableEndpoint", func(t *testing.T) {
		opts := withOptions(azureTestOptions(srv), map[string]string{"AZURE_STORAGE_ENDPOINT": storetest.ClosedPortURL(t) + "/" + srv.Account})
		s := openStore(t, "az://"+azureTestContainer+"/t", opts)
		for op, err := range storetest.ExpectFailures(t, s, bound, srv.Key) {
			if !strings.Contains(err.Error(), "cannot reach") {
				t.Errorf("%s: %v; want cannot reach", op, err)
			}
		}
	})
}
