package cloud

import (
	"context"
	"net/url"
	"os"

	"github.com/deltalite-go/deltalite/storage"
)

func init() {
	s3 := func(ctx context.Context, u *url.URL, o map[string]string) (storage.Store, error) {
		return newS3Store(ctx, u, o, os.Getenv)
	}
	storage.Register("s3", s3)
	storage.Register("s3a", s3)

	azure := func(ctx context.Context, u *url.URL, o map[string]string) (storage.Store, error) {
		return newAzureStore(ctx, u, o, os.Getenv)
	}
	for _, scheme := range []string{"az", "azure", "adl", "abfs", "abfss"} {
		storage.Register(scheme, azure)
	}

	storage.Register("gs", func(ctx context.Context, u *url.URL, o map[string]string) (storage.Store, error) {
		return newGCSStore(ctx, u, o, os.Getenv)
	})
}
