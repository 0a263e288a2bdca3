package scan

import (
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
)

// Source is the table state a scan reads: a *snapshot.Snapshot satisfies
// it. Files must not change for as long as a Scan built on it is in use.
type Source interface {
	// Store is rooted at the table root; add paths are relative to it.
	Store() storage.Store
	// Schema is the logical table schema.
	Schema() *schema.Struct
	// PartitionColumns are logical column names.
	PartitionColumns() []string
	// ColumnMapping is the table's column mapping mode.
	ColumnMapping() schema.Mode
	// Files are the live add actions of the snapshot, in a stable order.
	Files() []*protocol.Add
}
