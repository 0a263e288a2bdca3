package snapshot

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// ClusteringColumns returns the logical names of the table's clustering
// columns (nested ones dotted, as Spark's DESCRIBE DETAIL shows them, a
// name with a dot quoted in backticks: schema.QuoteColumnPath), read
// from the delta.clustering domain through the column mapping; nil when
// the table is not clustered or was altered to CLUSTER BY NONE.
func (s *Snapshot) ClusteringColumns() ([]string, error) {
	if !s.Protocol().Clustered() {
		return nil, nil
	}
	config, ok := s.DomainMetadata(protocol.ClusteringDomain)
	if !ok {
		return nil, nil
	}
	paths, err := protocol.ParseClusteringDomain(config)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range paths {
		name, err := LogicalPath(s.schema, s.mode, p)
		if err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, nil
}

// LogicalPath resolves a path of physical names (as the clustering domain
// records a column) to the column's dotted logical name
// (schema.QuoteColumnPath).
func LogicalPath(sc *schema.Struct, mode schema.Mode, physical []string) (string, error) {
	var names []string
	cur := sc
	for i, p := range physical {
		if cur == nil {
			return "", fmt.Errorf("clustering column %s: %s is not a struct", strings.Join(physical, "."), strings.Join(names, "."))
		}
		var found *schema.Field
		for _, f := range cur.Fields {
			if f.PhysicalName(mode) == p {
				found = f
				break
			}
		}
		if found == nil {
			return "", fmt.Errorf("clustering column %s is not in the table's schema", strings.Join(physical, "."))
		}
		names = append(names, found.Name)
		cur = nil
		if i < len(physical)-1 {
			cur, _ = found.Type.(*schema.Struct)
		}
	}
	return schema.QuoteColumnPath(names), nil
}

// Domains are the table's domain metadata, by domain name.
func (s *Snapshot) Domains() []protocol.DomainMetadata {
	var out []protocol.DomainMetadata
	for _, d := range slices.Sorted(maps.Keys(s.state.Domains)) {
		out = append(out, s.state.Domains[d])
	}
	return out
}
