package protocol

import (
	"reflect"
	"testing"
)

func TestMergeProtocols(t *testing.T) {
	for _, c := range []struct {
		a, b, want Protocol
	}{
		// Legacy versions: the higher of each.
		{Protocol{MinReaderVersion: 1, MinWriterVersion: 2}, Protocol{MinReaderVersion: 2, MinWriterVersion: 5},
			Protocol{MinReaderVersion: 2, MinWriterVersion: 5}},
		// Legacy and table features: the legacy features listed explicitly.
		{Protocol{MinReaderVersion: 1, MinWriterVersion: 4},
			Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"deletionVectors"}, WriterFeatures: []string{"deletionVectors"}},
			Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"deletionVectors"},
				WriterFeatures: []string{"appendOnly", "changeDataFeed", "checkConstraints", "deletionVectors", "generatedColumns", "invariants"}}},
		// Two feature lists: their union, once each.
		{Protocol{MinReaderVersion: 1, MinWriterVersion: 7, WriterFeatures: []string{"appendOnly", "inCommitTimestamp"}},
			Protocol{MinReaderVersion: 1, MinWriterVersion: 7, WriterFeatures: []string{"appendOnly", "domainMetadata"}},
			Protocol{MinReaderVersion: 1, MinWriterVersion: 7, WriterFeatures: []string{"appendOnly", "domainMetadata", "inCommitTimestamp"}}},
	} {
		for _, ab := range [][2]Protocol{{c.a, c.b}, {c.b, c.a}} {
			got := MergeProtocols(&ab[0], &ab[1])
			if !reflect.DeepEqual(*got, c.want) {
				t.Errorf("MergeProtocols(%s, %s) = %s, want %s", &ab[0], &ab[1], got, &c.want)
			}
			if lost := DroppedFeatures(&ab[0], got); len(lost) > 0 {
				t.Errorf("MergeProtocols(%s, %s) drops %v", &ab[0], &ab[1], lost)
			}
		}
	}
}
