package protocol

import (
	"slices"
	"testing"
)

// TestClusteringDomain: the action is Spark 4.4's configuration byte for
// byte; parsing reads Spark's paths and PROTOCOL.md's plain names, and
// refuses what is neither.
func TestClusteringDomain(t *testing.T) {
	d := ClusteringDomainAction([][]string{{"a"}, {"s", "b"}})
	if d.Domain != "delta.clustering" || d.Configuration != `{"clusteringColumns":[["a"],["s","b"]],"domainName":"delta.clustering"}` {
		t.Fatalf("action %+v", d)
	}
	if none := ClusteringDomainAction(nil); none.Configuration != `{"clusteringColumns":[],"domainName":"delta.clustering"}` {
		t.Fatalf("CLUSTER BY NONE %s", none.Configuration)
	}
	for config, want := range map[string][][]string{
		d.Configuration: {{"a"}, {"s", "b"}},
		`{"clusteringColumns":["col-1","col-2"]}`: {{"col-1"}, {"col-2"}},
		`{"clusteringColumns":[]}`:                {},
	} {
		got, err := ParseClusteringDomain(config)
		if err != nil || !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s: %v, %v", config, got, err)
		}
	}
	for _, bad := range []string{`{`, `{"clusteringColumns":[1]}`, `{"clusteringColumns":[[]]}`} {
		if _, err := ParseClusteringDomain(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	if !(&Protocol{MinReaderVersion: 1, MinWriterVersion: 7, WriterFeatures: []string{"clustering"}}).Clustered() ||
		(&Protocol{MinReaderVersion: 1, MinWriterVersion: 2}).Clustered() {
		t.Error("Clustered")
	}
}
