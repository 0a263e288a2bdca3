package testservers

import (
	"net/url"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// GCSServer is a fake-gcs-server running inside the test binary, reachable
// over HTTP (so re-executed writer processes can use it too).
type GCSServer struct {
	Host   string // 127.0.0.1:<port>, as STORAGE_EMULATOR_HOST wants it
	Server *fakestorage.Server
}

// GCS returns the in-process GCS server, starting it on first use.
func GCS(t testing.TB) *GCSServer {
	t.Helper()
	return once(t, "fake-gcs-server", func() (*GCSServer, func(), error) {
		srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{
			Scheme: "http",
			Host:   "127.0.0.1",
		})
		if err != nil {
			return nil, nil, err
		}
		u, err := url.Parse(srv.URL())
		if err != nil {
			srv.Stop()
			return nil, nil, err
		}
		return &GCSServer{Host: u.Host, Server: srv}, srv.Stop, nil
	})
}
