package storage_test

import (
	"testing"

	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/storage/storetest"
)

func TestMemoryConformance(t *testing.T) {
	storetest.Run(t, storetest.Harness{
		New: func(t *testing.T) storage.Store { return storage.NewMemory() },
	})
}
