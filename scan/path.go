package scan

import (
	"net/url"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// dataKey turns an add path into the object key of the data file: relative
// paths are URI-decoded; an absolute URI must lie under the store root and
// is made relative. Anything that leaves the table root is a corrupt log,
// never a file to open.
func dataKey(st storage.Store, addPath string) (string, error) {
	rel, err := relativePath(st.URL(), addPath)
	if err != nil {
		return "", err
	}
	key, err := storage.CleanKey(rel)
	if err != nil {
		return "", errs.Wrap(errs.CorruptTable, addPath, err, "add path is outside the table root")
	}
	return key, nil
}

func relativePath(root, addPath string) (string, error) {
	if !hasScheme(addPath) {
		p, err := protocol.DecodePath(addPath)
		if err != nil {
			return "", errs.Wrap(errs.CorruptTable, addPath, err, "invalid add path")
		}
		return p, nil
	}
	u, err := url.Parse(addPath)
	if err != nil {
		return "", errs.Wrap(errs.CorruptTable, addPath, err, "invalid add path")
	}
	r, err := url.Parse(root)
	if err != nil {
		return "", errs.Wrap(errs.Internal, root, err, "store URL does not parse")
	}
	rootPath := strings.TrimSuffix(r.Path, "/") + "/"
	if !strings.EqualFold(u.Scheme, r.Scheme) || !sameHost(u.Host, r.Host) || !strings.HasPrefix(u.Path, rootPath) {
		return "", errs.New(errs.CorruptTable, addPath, "add path is outside the table root %s", root)
	}
	return u.Path[len(rootPath):], nil
}

// hasScheme reports whether p starts with a URI scheme ("s3://", "file:/").
func hasScheme(p string) bool {
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

func sameHost(a, b string) bool {
	norm := func(h string) string {
		if h == "localhost" {
			return ""
		}
		return strings.ToLower(h)
	}
	return norm(a) == norm(b)
}
