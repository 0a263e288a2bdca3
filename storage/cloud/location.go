package cloud

import (
	"net/url"
	"path"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// credentialsGo says where credentials belong instead of a URL.
const credentialsGo = "pass credentials as storage options (--storage-option KEY=VALUE in the CLI) or environment variables"

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
// scheme://container@account.<service>.<suffix>/path. A URL with any other
// user part, a password, or a query is refused without repeating it: that
// is where credentials would hide.
func parseLocation(u *url.URL) (location, error) {
	l := location{scheme: u.Scheme}
	_, hasPassword := u.User.Password()
	if hasPassword || (u.User != nil && !errs.IsAzureContainer(u.Scheme, u.User.Username())) {
		return l, errs.New(errs.InvalidArgument, u.String(), "a table URL must not carry credentials (a user part, except an Azure container@account); %s", credentialsGo)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return l, errs.New(errs.InvalidArgument, "", "a table URL must not carry a query or a fragment; %s", credentialsGo)
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
