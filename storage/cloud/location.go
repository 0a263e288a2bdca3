package cloud

import (
	"net/url"
	"path"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// location is where a table lives: bucket (or container) and the key prefix
// of its root, parsed from the table URL.
type location struct {
	scheme string
	bucket string
	host   string // Azure: "account.dfs.core.windows.net" when the URL named one
	root   string // "" or ending in "/"
	url    string // canonical URL, without credentials or query
}

// parseLocation reads scheme://bucket/path, and for Azure also
// scheme://container@account.<service>.<suffix>/path. A URL that carries a
// password or a query is refused without repeating it: that is where
// credentials would hide.
func parseLocation(u *url.URL) (location, error) {
	l := location{scheme: u.Scheme}
	if _, hasPassword := u.User.Password(); hasPassword || u.RawQuery != "" || u.Fragment != "" {
		return l, errs.New(errs.InvalidArgument, "", "table URL must not carry credentials, a query or a fragment; pass credentials as storage options")
	}
	if u.User != nil {
		l.bucket = u.User.Username()
		l.host = strings.ToLower(u.Host)
	} else {
		l.bucket = u.Host
	}
	if l.bucket == "" {
		return l, errs.New(errs.InvalidArgument, "", "table URL names no bucket or container: want %s://<bucket>/<path>", u.Scheme)
	}
	p := strings.Trim(u.Path, "/")
	if p != "" {
		c := path.Clean(p)
		if c != p || c == ".." || strings.HasPrefix(c, "../") || strings.Contains(p, "//") {
			return l, errs.New(errs.InvalidArgument, u.Scheme+"://"+l.bucket, "table path %q is not clean (no '.', '..' or empty segments)", u.Path)
		}
		l.root = p + "/"
	}
	out := url.URL{Scheme: u.Scheme, Host: l.bucket, Path: "/" + p}
	if l.host != "" {
		out.User = url.User(l.bucket)
		out.Host = l.host
	}
	l.url = strings.TrimSuffix(out.String(), "/")
	return l, nil
}
