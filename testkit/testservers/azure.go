package testservers

import (
	"fmt"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// AzureServer is an Azurite blob service with in-memory storage.
type AzureServer struct {
	Endpoint string // http://127.0.0.1:<port>/devstoreaccount1
	Account  string
	Key      string
}

// Azurite's well-known development account.
const (
	azuriteAccount = "devstoreaccount1"
	azuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// Azurite returns the Azurite server of this test binary, starting it on
// first use.
func Azurite(t testing.TB) *AzureServer {
	t.Helper()
	azurite := tool{"azurite", "DELTALITE_AZURITE_BLOB", "npm/node_modules/.bin/azurite-blob", "Azurite (Azure Blob server)"}
	return external(t, azurite, 60*time.Second, func(bin string, port int, dir string) (*AzureServer, *exec.Cmd) {
		cmd := exec.Command(bin, "--blobHost", "127.0.0.1", "--blobPort", strconv.Itoa(port),
			"--inMemoryPersistence", "--skipApiVersionCheck", "--silent")
		cmd.Dir = dir
		return &AzureServer{
			Endpoint: fmt.Sprintf("http://127.0.0.1:%d/%s", port, azuriteAccount),
			Account:  azuriteAccount,
			Key:      azuriteKey,
		}, cmd
	})
}
