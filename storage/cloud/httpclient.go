package cloud

import (
	"crypto/tls"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// clientSettings bound how long a request may wait, so that a dead endpoint
// fails in seconds rather than hanging a commit.
type clientSettings struct {
	allowHTTP      bool
	insecureTLS    bool
	connectTimeout time.Duration // dialing one connection
	timeout        time.Duration // a whole request; 0: none (large bodies stream)
	headerTimeout  time.Duration // waiting for response headers once the request is sent
	maxRetries     int           // retries after the first attempt
	maxBackoff     time.Duration
}

const (
	defaultConnectTimeout = 5 * time.Second
	defaultHeaderTimeout  = 60 * time.Second
	defaultMaxRetries     = 3
	defaultMaxBackoff     = 2 * time.Second
)

func (c *config) clientSettings() (clientSettings, error) {
	var s clientSettings
	var err error
	if s.allowHTTP, err = c.bool(optAllowHTTP); err != nil {
		return s, err
	}
	if s.insecureTLS, err = c.bool(optAllowInvalidCerts); err != nil {
		return s, err
	}
	if s.connectTimeout, err = c.duration(optConnectTimeout, defaultConnectTimeout); err != nil {
		return s, err
	}
	if s.timeout, err = c.duration(optTimeout, 0); err != nil {
		return s, err
	}
	retries, err := c.int64(optMaxRetries, defaultMaxRetries)
	if err != nil {
		return s, err
	}
	s.maxRetries = int(min(retries, 20))
	s.headerTimeout = defaultHeaderTimeout
	if s.timeout > 0 && s.timeout < s.headerTimeout {
		s.headerTimeout = s.timeout
	}
	s.maxBackoff = defaultMaxBackoff
	return s, nil
}

// httpClient is one pooled client per store; connections are reused across
// the many small requests a table scan makes.
func (s clientSettings) httpClient() *http.Client {
	tr := &http.Transport{
		Proxy:       http.ProxyFromEnvironment,
		DialContext: (&net.Dialer{Timeout: s.connectTimeout, KeepAlive: 30 * time.Second}).DialContext,
	}
	s.tuneTransport(tr)
	return &http.Client{Transport: tr, Timeout: s.timeout}
}

// tuneTransport applies the settings to a transport an SDK built (the AWS
// SDK builds its own, to add AWS_CA_BUNDLE).
func (s clientSettings) tuneTransport(tr *http.Transport) {
	tr.ForceAttemptHTTP2 = true
	tr.MaxIdleConns = 128
	tr.MaxIdleConnsPerHost = 64
	tr.IdleConnTimeout = 90 * time.Second
	tr.TLSHandshakeTimeout = 10 * time.Second
	tr.ExpectContinueTimeout = time.Second
	tr.ResponseHeaderTimeout = s.headerTimeout
	if s.insecureTLS {
		if tr.TLSClientConfig == nil {
			tr.TLSClientConfig = &tls.Config{}
		}
		tr.TLSClientConfig.InsecureSkipVerify = true //nolint:gosec // the user asked for it by name
	}
}

// checkEndpoint validates a custom endpoint URL: absolute, http(s), and
// plain http only when allowed, since credentials would cross the network
// in the clear.
func (s clientSettings) checkEndpoint(key, endpoint string) (*url.URL, error) {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, errs.New(errs.InvalidArgument, "", "storage option %s is not an absolute http(s) URL", key)
	}
	if u.User != nil || u.RawQuery != "" {
		return nil, errs.New(errs.InvalidArgument, "", "storage option %s must not carry credentials or a query string", key)
	}
	if u.Scheme == "http" && !s.allowHTTP {
		return nil, errs.New(errs.InvalidArgument, "", "storage option %s=%q uses plain http; set ALLOW_HTTP=true (e.g. AWS_ALLOW_HTTP) to allow it", key, endpoint)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// retryBase is the first retry delay; each retry doubles it, up to
// maxBackoff, with full jitter. Short enough that a dead endpoint fails in
// about a second, long enough to ride out a blip.
const retryBase = 100 * time.Millisecond

// jitterBackoff is the retry delay for the AWS SDK (its own starts at one
// second, which makes every failure slow).
type jitterBackoff struct{ max time.Duration }

func (b jitterBackoff) BackoffDelay(attempt int, _ error) (time.Duration, error) {
	d := retryBase << min(max(attempt-1, 0), 10)
	d = min(d, b.max)
	return time.Duration(rand.Int64N(int64(d)) + 1), nil
}
