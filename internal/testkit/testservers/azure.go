package testservers

import (
	"fmt"
	"os"
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
	bin := findTool("DELTALITE_AZURITE_BLOB", "npm/node_modules/.bin/azurite-blob")
	if bin == "" {
		missing(t, "Azurite (Azure Blob server)")
	}
	return once(t, "azurite", func() (*AzureServer, func(), error) {
		port, err := freePort()
		if err != nil {
			return nil, nil, err
		}
		dir, err := os.MkdirTemp("", "deltalite-azurite-")
		if err != nil {
			return nil, nil, err
		}
		cmd := exec.Command(bin, "--blobHost", "127.0.0.1", "--blobPort", strconv.Itoa(port),
			"--inMemoryPersistence", "--skipApiVersionCheck", "--silent")
		cmd.Dir = dir
		p, err := startProcess(cmd, port, 60*time.Second)
		if err != nil {
			os.RemoveAll(dir)
			return nil, nil, err
		}
		srv := &AzureServer{
			Endpoint: fmt.Sprintf("http://127.0.0.1:%d/%s", port, azuriteAccount),
			Account:  azuriteAccount,
			Key:      azuriteKey,
		}
		return srv, func() { p.stop(); os.RemoveAll(dir) }, nil
	})
}
