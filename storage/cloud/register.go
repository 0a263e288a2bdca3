package cloud

import (
	"context"
	"net/url"
	"os"

	"github.com/deltalite-go/deltalite/storage"
)

type newStore func(ctx context.Context, u *url.URL, given map[string]string, getenv func(string) string) (*store, error)

// opener adapts a constructor to the registry: the real environment, and
// errors that name the table without any credential the URL might carry.
func opener(n newStore) storage.Opener {
	return func(ctx context.Context, u *url.URL, o map[string]string) (storage.Store, error) {
		s, err := n(ctx, u, o, os.Getenv)
		if err != nil {
			return nil, at(safeURL(u), err)
		}
		return s, nil
	}
}

// safeURL is u without password, query or fragment.
func safeURL(u *url.URL) string {
	c := url.URL{Scheme: u.Scheme, Host: u.Host, Path: u.Path}
	if u.User != nil {
		c.User = url.User(u.User.Username())
	}
	return c.String()
}

func init() {
	for _, scheme := range []string{"s3", "s3a"} {
		storage.Register(scheme, opener(newS3Store))
	}
	for _, scheme := range []string{"az", "azure", "adl", "abfs", "abfss"} {
		storage.Register(scheme, opener(newAzureStore))
	}
	storage.Register("gs", opener(newGCSStore))
}
