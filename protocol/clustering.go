package protocol

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Liquid clustering (PROTOCOL.md, "Clustered Table"): a table whose
// protocol lists the clustering writer feature keeps its clustering
// columns, as physical-name paths, in the delta.clustering domain, and the
// files a clustering wrote carry the name of the implementation.
const (
	FeatureClustering     = "clustering"
	FeatureDomainMetadata = "domainMetadata"
	// ClusteringDomain is the domain that holds the clustering columns.
	ClusteringDomain = "delta.clustering"
	// ClusteringProviderLiquid is the clusteringProvider of the files
	// Spark's (and this engine's) OPTIMIZE clusters: a clustering only
	// reclusters files with this provider or none.
	ClusteringProviderLiquid = "liquid"
	// MaxClusteringColumns is Spark's limit on clustering columns
	// (spark.databricks.delta.clusteredTable.numClusteringColumnsLimit).
	MaxClusteringColumns = 4
)

// clusteringConfig is the domain's configuration as Spark writes it:
// {"clusteringColumns":[["a"],["b"]],"domainName":"delta.clustering"},
// each column a path of physical names (one element for a top-level
// column).
type clusteringConfig struct {
	ClusteringColumns [][]string `json:"clusteringColumns"`
	DomainName        string     `json:"domainName"`
}

// ClusteringDomainAction is the domainMetadata action recording the
// clustering columns, given as physical-name paths; none (an empty list)
// is how ALTER TABLE ... CLUSTER BY NONE leaves a clustered table.
func ClusteringDomainAction(physical [][]string) *DomainMetadata {
	if physical == nil {
		physical = [][]string{}
	}
	b, err := json.Marshal(clusteringConfig{ClusteringColumns: physical, DomainName: ClusteringDomain})
	if err != nil {
		panic(err) // strings only
	}
	return &DomainMetadata{Domain: ClusteringDomain, Configuration: string(b)}
}

// ParseClusteringDomain reads the clustering columns (physical-name
// paths) from the delta.clustering domain's configuration. Spark writes
// paths; PROTOCOL.md's example plain names: both are read.
func ParseClusteringDomain(config string) ([][]string, error) {
	var raw struct {
		ClusteringColumns []json.RawMessage `json:"clusteringColumns"`
	}
	if err := json.Unmarshal([]byte(config), &raw); err != nil {
		return nil, fmt.Errorf("domain %s: %w", ClusteringDomain, err)
	}
	out := make([][]string, 0, len(raw.ClusteringColumns))
	for _, c := range raw.ClusteringColumns {
		var path []string
		if err := json.Unmarshal(c, &path); err != nil {
			var name string
			if err2 := json.Unmarshal(c, &name); err2 != nil {
				return nil, fmt.Errorf("domain %s: clustering column %s is neither a name nor a path of names", ClusteringDomain, c)
			}
			path = []string{name}
		}
		if len(path) == 0 {
			return nil, fmt.Errorf("domain %s: an empty clustering column path", ClusteringDomain)
		}
		out = append(out, path)
	}
	return out, nil
}

// Clustered reports whether the protocol makes the table a clustered
// table (the clustering writer feature).
func (p *Protocol) Clustered() bool {
	return p != nil && slices.Contains(p.EffectiveWriterFeatures(), FeatureClustering)
}
