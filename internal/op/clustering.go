package op

import (
	"fmt"
	"slices"
	"strings"

	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// Clustering is a resolved CLUSTER BY: the columns' logical names and the
// physical-name paths the delta.clustering domain records.
type Clustering struct {
	Logical  []string
	Physical [][]string
}

// Domain is the delta.clustering domainMetadata action of c.
func (c Clustering) Domain() *protocol.DomainMetadata {
	return protocol.ClusteringDomainAction(c.Physical)
}

// ResolveClustering checks CLUSTER BY names against a table as Spark's
// ClusteredTableUtils does, for a new table and for ALTER TABLE ...
// CLUSTER BY alike: at most protocol.MaxClusteringColumns columns, each a
// column or a field of struct columns (s.a; `a.b` quotes a name with a
// dot) named once, no partition columns on the table, and
// every column of a type with min/max statistics that the table's
// statistics settings (delta.dataSkippingNumIndexedCols,
// delta.dataSkippingStatsColumns) collect: Spark refuses a clustering
// column without statistics rather than adding it to them.
func ResolveClustering(sc *schema.Struct, partitionColumns []string, mode schema.Mode, props map[string]string, names []string) (Clustering, error) {
	var c Clustering
	if len(names) == 0 {
		return c, nil
	}
	if len(partitionColumns) > 0 {
		return c, fmt.Errorf("clustering and partitioning cannot both be specified (the table is partitioned by %s); "+
			"drop the partition columns or the clustering columns", strings.Join(partitionColumns, ", "))
	}
	if len(names) > protocol.MaxClusteringColumns {
		return c, fmt.Errorf("cluster by takes at most %d columns, not %d", protocol.MaxClusteringColumns, len(names))
	}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			return c, fmt.Errorf("cluster by: an empty column name (give columns as c1,c2)")
		}
		fields, err := clusteringField(sc, n)
		if err != nil {
			return c, err
		}
		f := fields[len(fields)-1]
		logicalPath, physical := make([]string, len(fields)), make([]string, len(fields))
		for i, f := range fields {
			logicalPath[i], physical[i] = f.Name, f.PhysicalName(mode)
		}
		logical := schema.QuoteColumnPath(logicalPath)
		if slices.ContainsFunc(c.Logical, func(l string) bool { return strings.EqualFold(l, logical) }) {
			return c, fmt.Errorf("cluster by %q: the column is named twice", logical)
		}
		if !schema.MinMaxEligible(f.Type) {
			return c, fmt.Errorf("cluster by %q: its type %s does not support data skipping (clustering columns must be numeric, decimal, string, date or timestamp)", logical, f.Type)
		}
		ok, err := datafile.HasMinMax(sc, nil, mode, protocol.Properties(props), logicalPath)
		if err != nil {
			return c, err
		}
		if !ok {
			return c, fmt.Errorf("cluster by %q: clustering columns need statistics and the table collects none for it; "+
				"add it to %s or raise %s to cover it", logical, protocol.PropDataSkippingStatsColumns, protocol.PropDataSkippingNumIndexedCols)
		}
		c.Logical = append(c.Logical, logical)
		c.Physical = append(c.Physical, physical)
	}
	return c, nil
}

// clusteringField resolves a CLUSTER BY name to the fields along its path.
func clusteringField(sc *schema.Struct, name string) ([]*schema.Field, error) {
	fields, err := sc.ColumnPath(name)
	if err != nil {
		return nil, fmt.Errorf("cluster by %q: %v (columns: %s)", name, err, fieldNames(sc))
	}
	return fields, nil
}
