package protocol

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/deltalite-go/deltalite/storage"
)

// ErrOutsideRoot is wrapped by ObjectKey when an absolute path names another
// store, or a place outside the table root in the same store.
var ErrOutsideRoot = errors.New("outside the table root")

// ObjectKey resolves a file path from the log (an add's or remove's path, a
// deletion vector's absolute "p" path, a sidecar's absolute path) to the key
// of the object in the store rooted at rootURL. This is the one rule every
// reader and cleaner follows:
//   - a relative path is URI-decoded and must stay under the root;
//   - an absolute URI must name the root's store (s3a and s3n are s3;
//     file://localhost/ is file:///; scheme and host compare case-blind) and
//     lie under the root's path, compared decoded and cleaned.
//
// Anything else is an error, so a log can never make an engine open or
// delete an object outside its table.
func ObjectKey(rootURL, p string) (string, error) {
	rel, err := relativeTo(rootURL, p)
	if err != nil {
		return "", err
	}
	key, err := storage.CleanKey(rel)
	if err != nil {
		return "", fmt.Errorf("path %q: %w (%w)", p, ErrOutsideRoot, err)
	}
	return key, nil
}

func relativeTo(rootURL, p string) (string, error) {
	if !HasScheme(p) {
		return DecodePath(p)
	}
	u, err := url.Parse(p)
	if err != nil {
		return "", fmt.Errorf("path %q is not a valid URI: %w", p, err)
	}
	r, err := url.Parse(rootURL)
	if err != nil {
		return "", fmt.Errorf("table root %q is not a valid URI: %w", rootURL, err)
	}
	if normScheme(u.Scheme) != normScheme(r.Scheme) || normHost(u) != normHost(r) {
		return "", fmt.Errorf("path %q: %w %s", p, ErrOutsideRoot, rootURL)
	}
	dir := strings.TrimSuffix(path.Clean("/"+r.Path), "/") + "/"
	rel, ok := strings.CutPrefix(path.Clean("/"+u.Path), dir)
	if !ok || rel == "" {
		return "", fmt.Errorf("path %q: %w %s", p, ErrOutsideRoot, rootURL)
	}
	return rel, nil
}

// HasScheme reports whether p starts with a URI scheme ("s3://", "file:/"),
// that is, whether the log holds it as an absolute URI.
func HasScheme(p string) bool {
	i := strings.IndexByte(p, ':')
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := p[j]
		alpha := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !alpha && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return true
}

// normScheme treats the Hadoop aliases of S3 as S3.
func normScheme(s string) string {
	s = strings.ToLower(s)
	switch s {
	case "s3a", "s3n":
		return "s3"
	}
	return s
}

func normHost(u *url.URL) string {
	h := strings.ToLower(u.Host)
	if strings.EqualFold(u.Scheme, "file") && h == "localhost" {
		return ""
	}
	return h
}
