package cloud

import (
	"context"
	"net/url"
	"os"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/storage"
)

type newStore func(ctx context.Context, u *url.URL, given map[string]string, getenv func(string) string) (*store, error)

// opener adapts a constructor to the registry: the real environment, and
// errors that name the table without any credential the URL might carry.
func opener(n newStore) storage.Opener {
	return func(ctx context.Context, u *url.URL, o map[string]string) (storage.Store, error) {
		s, err := n(ctx, u, o, os.Getenv)
		if err != nil {
			return nil, at(errs.RedactURL(u.String()), err)
		}
		return s, nil
	}
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
