package storage_test

import (
	"testing"

	"github.com/deltalite-go/deltalite/storage/storetest"
)

// TestMain routes through storetest.Main: the process race re-executes this
// binary as its writers.
func TestMain(m *testing.M) { storetest.Main(m) }
