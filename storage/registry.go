package storage

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// Opener builds a Store for a URL with the given storage options (keys as
// delta-rs / object_store spell them, already upper-cased).
type Opener func(ctx context.Context, u *url.URL, options map[string]string) (Store, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]Opener{}
)

// Register makes a URL scheme available to Open. Cloud packages call it from
// init; registering a scheme twice panics, as it is a programming error.
func Register(scheme string, o Opener) {
	registryMu.Lock()
	defer registryMu.Unlock()
	scheme = strings.ToLower(scheme)
	if _, dup := registry[scheme]; dup {
		panic("storage: scheme registered twice: " + scheme)
	}
	registry[scheme] = o
}

// Schemes lists the registered URL schemes.
func Schemes() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]string, 0, len(registry))
	for s := range registry {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func init() {
	Register("file", openLocalURL)
	Register("memory", openMemoryURL)
}

// Open returns the Store for a table URI: a plain path, file://, memory://,
// or any scheme a cloud package registered. Option keys are matched
// case-insensitively.
func Open(ctx context.Context, uri string, options map[string]string) (Store, error) {
	u, err := ParseURI(uri)
	if err != nil {
		return nil, err
	}
	registryMu.RLock()
	o, ok := registry[u.Scheme]
	registryMu.RUnlock()
	if !ok {
		hint := ""
		switch u.Scheme {
		case "s3", "s3a", "gs", "az", "abfs", "abfss", "azure", "adl":
			hint = " (import github.com/deltalite-go/deltalite/storage/cloud to enable it)"
		}
		return nil, fmt.Errorf("unsupported URL scheme %q in %q%s", u.Scheme, errs.RedactURL(uri), hint)
	}
	upper := make(map[string]string, len(options))
	for k, v := range options {
		u := strings.ToUpper(k)
		if _, dup := upper[u]; dup {
			return nil, fmt.Errorf("storage option %s is given twice (keys are case-insensitive)", u)
		}
		upper[u] = v
	}
	return o(ctx, u, upper)
}

// ParseURI turns a table location into a URL: a plain path (relative or
// absolute) becomes a file:// URL with an absolute path.
func ParseURI(uri string) (*url.URL, error) {
	if uri == "" {
		return nil, fmt.Errorf("empty table URI")
	}
	if i := strings.Index(uri, "://"); i > 0 && !strings.ContainsAny(uri[:i], "/\\") {
		u, err := url.Parse(uri)
		if err != nil {
			// url.Error quotes the URI, and a password with a '/' in it
			// fails to parse: redact the whole message, keep no cause.
			hint := ""
			if strings.Contains(uri, "@") {
				hint = "; credentials go in storage options, not in the URL"
			}
			return nil, errors.New(errs.RedactURL(fmt.Sprintf("invalid table URI %q: %v%s", uri, err, hint)))
		}
		u.Scheme = strings.ToLower(u.Scheme)
		return u, nil
	}
	abs, err := filepath.Abs(uri)
	if err != nil {
		return nil, fmt.Errorf("invalid table path %q: %w", uri, err)
	}
	return &url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}, nil
}
