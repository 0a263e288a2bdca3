package testservers

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// S3Server is a versitygw gateway over a temporary directory.
type S3Server struct {
	Endpoint  string // http://127.0.0.1:<port>
	AccessKey string
	SecretKey string // random per run: tests check it never leaks
	Region    string
	Root      string // the posix directory behind the gateway
}

// S3 returns the versitygw server of this test binary, starting it on
// first use.
func S3(t testing.TB) *S3Server {
	t.Helper()
	bin := findTool("DELTALITE_VERSITYGW", "bin/versitygw")
	if bin == "" {
		missing(t, "versitygw (S3 server)")
	}
	return once(t, "versitygw", func() (*S3Server, func(), error) {
		port, err := freePort()
		if err != nil {
			return nil, nil, err
		}
		root, err := os.MkdirTemp("", "deltalite-versitygw-")
		if err != nil {
			return nil, nil, err
		}
		srv := &S3Server{
			Endpoint:  fmt.Sprintf("http://127.0.0.1:%d", port),
			AccessKey: "deltalite-test-access",
			SecretKey: "s3secret-" + randomHex(16),
			Region:    "us-east-1",
			Root:      root,
		}
		cmd := exec.Command(bin, "--port", "127.0.0.1:"+strconv.Itoa(port), "--quiet", "posix", root)
		cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+srv.AccessKey, "ROOT_SECRET_KEY="+srv.SecretKey)
		p, err := startProcess(cmd, port, 30*time.Second)
		if err != nil {
			os.RemoveAll(root)
			return nil, nil, err
		}
		return srv, func() { p.stop(); os.RemoveAll(root) }, nil
	})
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
