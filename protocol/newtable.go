package protocol

import (
	"slices"
	"sort"

	"github.com/deltalite-go/deltalite/schema"
)

// Which features are reader+writer features (listed in both lists) and
// which writer-only; with the legacy version that implies each.
var featureInfo = map[string]struct {
	reader        bool
	legacyR, legW int
}{
	"appendOnly":          {false, 1, 2},
	"invariants":          {false, 1, 2},
	"checkConstraints":    {false, 1, 3},
	"changeDataFeed":      {false, 1, 4},
	"generatedColumns":    {false, 1, 4},
	"columnMapping":       {true, 2, 5},
	"identityColumns":     {false, 1, 6},
	"deletionVectors":     {true, 3, 7},
	"timestampNtz":        {true, 3, 7},
	"v2Checkpoint":        {true, 3, 7},
	"vacuumProtocolCheck": {true, 3, 7},
	"typeWidening":        {true, 3, 7},
	"domainMetadata":      {false, 1, 7},
	"inCommitTimestamp":   {false, 1, 7},
	"rowTracking":         {false, 1, 7},
	"clustering":          {false, 1, 7},
	"icebergCompatV1":     {false, 1, 7},
	"icebergCompatV2":     {false, 1, 7},
}

// featureNeeds are the features a feature needs with it (Spark's
// requiredFeatures).
var featureNeeds = map[string][]string{
	"rowTracking": {"domainMetadata"},
}

// RequiredFeatures lists the table features a table with this schema and
// these properties needs: from column types (timestamp_ntz), from column
// metadata (generated and identity columns), from delta.*
// property values (tableProps: column mapping, deletion vectors, change
// data feed, ...) and from delta.feature.<name> = supported entries.
func RequiredFeatures(sc *schema.Struct, props map[string]string) []string {
	var out []string
	if sc != nil && hasType(sc, schema.TimestampNTZ) {
		out = append(out, "timestampNtz")
	}
	if sc != nil {
		for _, f := range sc.Fields {
			if _, ok := f.Metadata[schema.GenerationExpressionKey]; ok {
				out = append(out, "generatedColumns")
			}
			if _, ok := f.Metadata[schema.IdentityStartKey]; ok {
				out = append(out, "identityColumns")
			}
		}
	}
	for _, r := range propertyFeatures(props) {
		out = append(out, r.Feature)
		out = append(out, featureNeeds[r.Feature]...)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func hasType(t schema.Type, name string) bool {
	switch t := t.(type) {
	case *schema.Primitive:
		return t.Name == name
	case *schema.Struct:
		for _, f := range t.Fields {
			if hasType(f.Type, name) {
				return true
			}
		}
	case *schema.Array:
		return hasType(t.Element, name)
	case *schema.Map:
		return hasType(t.Key, name) || hasType(t.Value, name)
	}
	return false
}

// MinimalProtocol is the lowest protocol that supports the features: the
// legacy r1/w2 (.. r2/w5 ..) when the legacy versions cover them, else
// reader 3 (when a reader feature is needed) / writer 7 with explicit lists.
// Unknown feature names force writer 7 and are listed as writer features.
func MinimalProtocol(features []string) Protocol {
	r, w := 1, 2
	explicit := false
	for _, f := range features {
		info, known := featureInfo[f]
		if !known || info.legW == 7 {
			explicit = true
			continue
		}
		r, w = max(r, info.legacyR), max(w, info.legW)
	}
	if !explicit {
		return Protocol{MinReaderVersion: r, MinWriterVersion: w}
	}
	// Table features: the needed ones plus what writer 2 always meant.
	all := append(slices.Clone(features), "appendOnly", "invariants")
	sort.Strings(all)
	all = slices.Compact(all)
	p := Protocol{MinReaderVersion: 1, MinWriterVersion: 7, WriterFeatures: all}
	for _, f := range all {
		if featureInfo[f].reader {
			p.ReaderFeatures = append(p.ReaderFeatures, f)
		}
	}
	if len(p.ReaderFeatures) > 0 {
		p.MinReaderVersion = 3
	}
	return p
}
