package protocol

import (
	"fmt"
	"maps"

	"github.com/deltalite-go/deltalite/schema"
)

// WithSchema returns a copy of md whose schema is s, for an operation that
// evolves a table's schema. Under column mapping (mode is the table's, not
// schema.MappingNone) the fields of s that lack a column id or a physical
// name get new ones above the table's delta.columnMapping.maxColumnId,
// which the copy raises to match; s is changed in place. md is not.
func (md *Metadata) WithSchema(s *schema.Struct, mode schema.Mode) *Metadata {
	next := *md
	next.Configuration = maps.Clone(md.Configuration)
	if mode != schema.MappingNone {
		if next.Configuration == nil {
			next.Configuration = map[string]string{}
		}
		maxID, _ := Properties(next.Configuration).Int(PropColumnMappingMaxID, 0)
		next.Configuration[PropColumnMappingMaxID] = fmt.Sprint(schema.AssignColumnMapping(s, maxID))
	}
	next.SchemaString = s.JSON()
	return &next
}
