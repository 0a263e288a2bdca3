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
	versitygw := tool{"versitygw", "DELTALITE_VERSITYGW", "bin/versitygw", "versitygw (S3 server)"}
	return external(t, versitygw, 30*time.Second, func(bin string, port int, root string) (*S3Server, *exec.Cmd) {
		srv := &S3Server{
			Endpoint:  fmt.Sprintf("http://127.0.0.1:%d", port),
			AccessKey: "deltalite-test-access",
			SecretKey: "s3secret-" + randomHex(16),
			Region:    "us-east-1",
			Root:      root,
		}
		cmd := exec.Command(bin, "--port", "127.0.0.1:"+strconv.Itoa(port), "--quiet", "posix", root)
		cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+srv.AccessKey, "ROOT_SECRET_KEY="+srv.SecretKey)
		return srv, cmd
	})
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
