package storage_test

import (
	"testing"

	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/storage/storetest"
)

func TestLocalConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{
		New: func(t *testing.T) storage.Store {
			s, err := storage.NewLocal(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Reopen: func(t *testing.T, s storage.Store) (string, map[string]string) {
			return s.URL(), nil
		},
	})
}
