package cloud

import (
	"testing"

	"github.com/deltalite-go/deltalite/storage/storetest"
	"github.com/deltalite-go/deltalite/testkit/testservers"
)

// TestMain routes through storetest.Main (the process race re-executes this
// binary as its writers) and stops the servers the tests started.
func TestMain(m *testing.M) { storetest.Main(m, testservers.StopAll) }
